import { useQuery } from '@tanstack/react-query';
import type { LedgerPage } from '#domain/ledger.ts';
import { ledgerPageQueryOptions } from '#client/commands/api/get-ledger.ts';
import {
  anyConfirming,
  batchesOfPage,
  batchRecordFromLedger,
  CONFIRMING_REFRESH_MS,
  type BatchRecord,
} from '../lib/ledger-batches.ts';

const BATCH_LIST_LIMIT = 100;

const firstBatchOfPage = (page: LedgerPage): BatchRecord | null => batchesOfPage(page)[0] ?? null;

/** Polled while a batch is being confirmed: the BFF adds commands it finds to the entry (docs/decisions/006, section 5). */
const whileConfirming = (query: { state: { data: LedgerPage | undefined } }) =>
  anyConfirming(query.state.data) ? CONFIRMING_REFRESH_MS : false;

/** The latest accepted batches of the BFF ledger (who, when, how many devices), newest first. */
export const useBatchList = () =>
  useQuery({
    ...ledgerPageQueryOptions({ kind: 'batch', limit: BATCH_LIST_LIMIT }),
    select: batchesOfPage,
    refetchInterval: whileConfirming,
  });

/** One batch as the BFF ledger recorded it, or `null` when the ledger holds no such batch. */
export const useBatch = (batchCommandId: string) =>
  useQuery({
    ...ledgerPageQueryOptions({ kind: 'batch', batchCommandId, limit: 1 }),
    select: firstBatchOfPage,
    refetchInterval: whileConfirming,
  });

/** Ledger entry IDs are decimal numbers (`LedgerQuerySchema`'s `before`). */
const ENTRY_ID = /^\d{1,17}$/;

/** One batch by ledger entry ID, for a batch whose ID was never learnt; `null` when none or not an entry ID. */
export function useBatchByEntry(ledgerId: string) {
  const valid = ENTRY_ID.test(ledgerId);
  const before = valid ? String(BigInt(ledgerId) + 1n) : '1';
  return useQuery({
    ...ledgerPageQueryOptions({ kind: 'batch', before, limit: 1 }),
    enabled: valid,
    select: (page: LedgerPage) => {
      const entry = page.entries.find((e) => e.id === ledgerId);
      return entry ? batchRecordFromLedger(entry) : null;
    },
    refetchInterval: whileConfirming,
  });
}
