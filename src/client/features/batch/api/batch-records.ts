import { useQuery } from '@tanstack/react-query';
import type { LedgerPage } from '../../../../domain/ledger.ts';
import { ledgerPageQueryOptions } from '../../../commands/api/get-ledger.ts';
import { batchesOfPage, type BatchRecord } from '../lib/ledger-batches.ts';

/** How many of the latest batches the batch list shows. */
const BATCH_LIST_LIMIT = 100;

const firstBatchOfPage = (page: LedgerPage): BatchRecord | null => batchesOfPage(page)[0] ?? null;

/** The latest accepted batches of the BFF ledger (who, when, how many devices), newest first. */
export const useBatchList = () =>
  useQuery({
    ...ledgerPageQueryOptions({ kind: 'batch', limit: BATCH_LIST_LIMIT }),
    select: batchesOfPage,
  });

/** One batch as the BFF ledger recorded it, or `null` when the ledger holds no such batch. */
export const useBatch = (batchCommandId: string) =>
  useQuery({
    ...ledgerPageQueryOptions({ kind: 'batch', batchCommandId, limit: 1 }),
    select: firstBatchOfPage,
  });
