import { useQuery } from '@tanstack/react-query';
import type { LedgerPage } from '../../../../domain/ledger.ts';
import { ledgerPageQueryOptions } from '../../../commands/api/get-ledger.ts';
import { latestBatchCancel } from '../lib/ledger-batch-cancels.ts';

/** How many of a batch's cancel entries are read to find one with results (a refused cancel has none). */
const CANCEL_ENTRIES_READ = 20;

const latestCancelOfPage = (page: LedgerPage) => latestBatchCancel(page.entries);

/**
 * The latest batch cancel of one batch with per-device results, from the BFF ledger (kind
 * `batchCancel`), or `null` when none was made. Not read for a batch without a batch ID (it is
 * cancelled device by device, and a query without the ID would match every batch's cancels).
 */
export const useLatestBatchCancel = (batchCommandId: string | undefined) =>
  useQuery({
    ...ledgerPageQueryOptions({ kind: 'batchCancel', batchCommandId, limit: CANCEL_ENTRIES_READ }),
    enabled: batchCommandId !== undefined,
    select: latestCancelOfPage,
  });
