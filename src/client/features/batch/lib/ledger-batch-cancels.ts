import type { BatchCancelResult } from '#domain/batch.ts';
import type { LedgerEntry } from '#domain/ledger.ts';

/** A batch cancel as the BFF ledger recorded it: when, by whom, and one result per device. */
export interface RecordedBatchCancel {
  at: string;
  by: string;
  results: BatchCancelResult[];
}

/** A ledger `batchCancel` with per-device results, or `null` (other entries, or no results to show). */
export function batchCancelFromLedger(entry: LedgerEntry): RecordedBatchCancel | null {
  if (entry.kind !== 'batchCancel' || entry.state !== 'succeeded') return null;
  const results = entry.outcome?.results;
  if (!results || results.length === 0) return null;
  return { at: entry.createdAt, by: entry.operatorName ?? entry.clientId, results };
}

/** The newest recorded cancel among `entries` (the ledger answers newest first), or `null`. */
export function latestBatchCancel(entries: readonly LedgerEntry[]): RecordedBatchCancel | null {
  for (const entry of entries) {
    const cancel = batchCancelFromLedger(entry);
    if (cancel) return cancel;
  }
  return null;
}
