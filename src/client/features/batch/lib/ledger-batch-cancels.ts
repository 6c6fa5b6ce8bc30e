import type { BatchCancelResult } from '../../../../domain/batch.ts';
import type { LedgerEntry } from '../../../../domain/ledger.ts';

/** A batch cancel as the BFF ledger recorded it: when, by whom, and one result per device. */
export interface RecordedBatchCancel {
  /** When the cancel was sent (the ledger entry's `createdAt`, ISO 8601 UTC). */
  at: string;
  /** The operator's name, else the client ID that sent it. */
  by: string;
  results: BatchCancelResult[];
}

/**
 * A batch cancel of the ledger with its per-device results (kind `batchCancel`, the
 * upstream's answer kept in `outcome.results`), or `null` for any other entry, and for a cancel
 * without results: refused as a whole, still pending, or of unknown outcome (nothing per device
 * to show).
 */
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
