import { MAX_HISTORY_RANGE_MS } from '../../../../domain/history.ts';
import type { CommandStatus, StatusRecord } from '../../../../domain/command.ts';

/** A history chunk: `[startMs, endMs)`, at most 30 days (spec 8). */
export interface HistoryChunk {
  startMs: number;
  endMs: number;
}

/**
 * The chunks covering `[startMs, endMs)`: fixed 30-day slots counted from the epoch, so the same
 * slot (and its cache entry) serves every view that touches it while the operator pans. Each
 * chunk is a valid history range (spec 8, domain `historyRangeProblem`).
 */
export function historyChunks(
  startMs: number,
  endMs: number,
  chunkMs = MAX_HISTORY_RANGE_MS,
): HistoryChunk[] {
  const chunks: HistoryChunk[] = [];
  if (!(endMs > startMs)) return chunks;
  for (let slot = Math.floor(startMs / chunkMs); slot * chunkMs < endMs; slot++)
    chunks.push({ startMs: slot * chunkMs, endMs: (slot + 1) * chunkMs });
  return chunks;
}

const STATUS_RANK: Record<CommandStatus, number> = {
  received: 0,
  executing: 1,
  completed: 2,
  cancelled: 2,
};

/**
 * Merges records of several chunks (a window crossing a chunk border is in both), one per
 * command id; when two copies differ the later lifecycle status wins, since status only moves
 * forward (spec 3.1). Sorted by start time.
 */
export function mergeRecords(lists: Iterable<readonly StatusRecord[]>): StatusRecord[] {
  const byId = new Map<string, StatusRecord>();
  for (const list of lists)
    for (const record of list) {
      const known = byId.get(record.id);
      if (!known || STATUS_RANK[record.status] > STATUS_RANK[known.status])
        byId.set(record.id, record);
    }
  return [...byId.values()].sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
}
