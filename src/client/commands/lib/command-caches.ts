import type { QueryClient } from '@tanstack/react-query';
import type { CommandStatus, StatusRecord } from '#domain/command.ts';
import type { HistoryResponse, TimeRangeMs } from '#domain/history.ts';
import { commandKeys } from '../api/command-keys.ts';

/**
 * The one writer of status records into the history cache: replaces the record in each cached
 * slot holding it. An invalidated slot is left alone: a write would mark it fresh again.
 */
export function writeStatusIntoHistory(queryClient: QueryClient, record: StatusRecord): void {
  const slots = queryClient
    .getQueryCache()
    .findAll({ queryKey: commandKeys.histories(record.deviceId) });
  for (const query of slots) {
    if (query.state.isInvalidated) continue;
    const slot = queryClient.getQueryData<HistoryResponse>(query.queryKey);
    if (slot?.commands.some((c) => c.id === record.id))
      queryClient.setQueryData<HistoryResponse>(query.queryKey, {
        commands: slot.commands.map((c) => (c.id === record.id ? record : c)),
      });
  }
}

/** After any command change: the devices' caches, the ledger and the queued changes are read again; resolves once on-screen data is new. */
export async function invalidateDeviceCommands(
  queryClient: QueryClient,
  deviceIds: Iterable<string>,
): Promise<void> {
  await Promise.all([
    ...[...new Set(deviceIds)].map((deviceId) =>
      queryClient.invalidateQueries({ queryKey: commandKeys.device(deviceId) }),
    ),
    queryClient.invalidateQueries({ queryKey: commandKeys.ledger() }),
    queryClient.invalidateQueries({ queryKey: commandKeys.changes() }),
  ]);
}

const STATUS_RANK: Record<CommandStatus, number> = {
  received: 0,
  executing: 1,
  completed: 2,
  cancelled: 2,
};

/** Merges slots' records one per command ID, the later lifecycle status winning (docs/upstream.md, Lifecycle); by start. */
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

/** The records whose window meets `[startMs, endMs)`, as the history query answers a range. */
export function recordsMeeting(
  records: readonly StatusRecord[],
  { startMs, endMs }: TimeRangeMs,
): StatusRecord[] {
  return records.filter(
    (record) => Date.parse(record.startTime) < endMs && Date.parse(record.endTime) > startMs,
  );
}
