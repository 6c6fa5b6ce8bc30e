import { queryOptions, useQuery } from '@tanstack/react-query';
import { LedgerPageSchema } from '../../../../domain/ledger.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { latestBatchCancel, type RecordedBatchCancel } from '../lib/ledger-batch-cancels.ts';
import { batchKeys } from './batch-keys.ts';

/** How many of a batch's cancel entries are read to find one with results (a refused cancel has none). */
const CANCEL_ENTRIES_READ = 20;

/**
 * The latest batch cancel of one batch with per-device results, from the BFF ledger
 * (`GET /api/ledger?kind=batchCancel&batchCommandId=...`, issue 4), or `null` when none was made.
 */
export async function getLatestBatchCancel(
  batchCommandId: string,
  signal?: AbortSignal,
): Promise<RecordedBatchCancel | null> {
  const page = await apiRequest('/ledger', LedgerPageSchema, {
    query: { kind: 'batchCancel', batchCommandId, limit: String(CANCEL_ENTRIES_READ) },
    signal,
  });
  return latestBatchCancel(page.entries);
}

export const latestBatchCancelQueryOptions = (batchCommandId: string) =>
  queryOptions({
    queryKey: batchKeys.cancels(batchCommandId),
    queryFn: ({ signal }) => getLatestBatchCancel(batchCommandId, signal),
    staleTime: 10_000,
  });

export const useLatestBatchCancel = (batchCommandId: string) =>
  useQuery(latestBatchCancelQueryOptions(batchCommandId));
