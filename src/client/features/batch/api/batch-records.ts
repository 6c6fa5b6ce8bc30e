import { useQuery } from '@tanstack/react-query';
import type { LedgerPage } from '../../../../domain/ledger.ts';
import { ledgerPageQueryOptions } from '../../../commands/api/get-ledger.ts';
import {
  anyConfirming,
  batchesOfPage,
  batchRecordFromLedger,
  CONFIRMING_REFRESH_MS,
  type BatchRecord,
} from '../lib/ledger-batches.ts';

/** How many of the latest batches the batch list shows. */
const BATCH_LIST_LIMIT = 100;

const firstBatchOfPage = (page: LedgerPage): BatchRecord | null => batchesOfPage(page)[0] ?? null;

/**
 * Read again while a batch of the page is still being confirmed: the BFF adds each device command
 * it finds in a device's history to the batch's ledger entry (docs/decisions/006, section 5).
 */
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

/**
 * One batch by its ledger entry ID, for a batch without a batch ID (found in the histories after
 * its answer was lost): the page of one entry before the next ID. `null` when there is no such
 * accepted batch, or the ID is no entry ID.
 */
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
