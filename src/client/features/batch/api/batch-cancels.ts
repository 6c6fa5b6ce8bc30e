import { useQuery } from '@tanstack/react-query';
import type { LedgerPage } from '#domain/ledger.ts';
import { ledgerPageQueryOptions } from '#client/commands/api/get-ledger.ts';
import { latestBatchCancel } from '../lib/ledger-batch-cancels.ts';

/** How many of a batch's cancel entries are read to find one with results (a refused cancel has none). */
const CANCEL_ENTRIES_READ = 20;

const latestCancelOfPage = (page: LedgerPage) => latestBatchCancel(page.entries);

/**
 * The latest batch cancel with per-device results from the ledger, or `null`. Not read without a
 * batch ID: that query would match every batch's cancels.
 */
export const useLatestBatchCancel = (batchCommandId: string | undefined) =>
  useQuery({
    ...ledgerPageQueryOptions({ kind: 'batchCancel', batchCommandId, limit: CANCEL_ENTRIES_READ }),
    enabled: batchCommandId !== undefined,
    select: latestCancelOfPage,
  });
