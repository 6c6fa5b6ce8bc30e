import { BatchRequestSchema } from '../../../../domain/batch.ts';
import type { LedgerEntry } from '../../../../domain/ledger.ts';
import type { BatchRecord } from '../api/batch-records.ts';

/**
 * A batch as the BFF ledger recorded it (issue 4: kind `batch`, the request sent and the device
 * commands the upstream created), or `null` when the entry is no accepted batch: not a batch,
 * failed or still pending, or without the request or its commands. The ledger keeps no site zone,
 * so the record is shown in UTC.
 */
export function batchRecordFromLedger(entry: LedgerEntry): BatchRecord | null {
  if (entry.kind !== 'batch' || entry.state !== 'succeeded' || !entry.batchCommandId) return null;
  const request = BatchRequestSchema.safeParse(entry.request);
  const commands = entry.outcome?.commands;
  if (!request.success || !commands || commands.length === 0) return null;
  return {
    batchCommandId: entry.batchCommandId,
    submittedAt: entry.createdAt,
    command: request.data.command,
    commands,
    timeZone: 'UTC',
    submittedBy: entry.operatorName ?? entry.clientId,
  };
}

/** Batches of both sources, once each (the session's copy wins), newest first. */
export function mergeBatches(
  session: readonly BatchRecord[],
  ledger: readonly BatchRecord[],
): BatchRecord[] {
  const seen = new Set(session.map((b) => b.batchCommandId));
  return [...session, ...ledger.filter((b) => !seen.has(b.batchCommandId))].sort(
    (a, b) => Date.parse(b.submittedAt) - Date.parse(a.submittedAt),
  );
}
