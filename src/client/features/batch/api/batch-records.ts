import { queryOptions, useQuery } from '@tanstack/react-query';
import type { DeviceCommand } from '../../../../domain/command.ts';
import { LedgerPageSchema } from '../../../../domain/ledger.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { ApiError } from '../../../lib/api-error.ts';
import { batchRecordFromLedger } from '../lib/ledger-batches.ts';
import { batchKeys } from './batch-keys.ts';

/** What the SPA knows of a batch it submitted: enough to poll and cancel it device by device. */
export interface BatchRecord {
  batchCommandId: string;
  /** When the upstream accepted it (its `timestamp`, ISO 8601 UTC). */
  submittedAt: string;
  command: DeviceCommand;
  /** One device command per device, as the submission answered (DESIGN.md 3, "Batch"). */
  commands: { deviceId: string; id: string }[];
  /** The zone the window was typed on, to show it on the same clock. */
  timeZone: string;
  /** Who submitted it, when known from the ledger. */
  submittedBy?: string | undefined;
}

/** Code of the refusal when a batch is not known to this browser session. */
export const BATCH_NOT_IN_SESSION = 'batch_not_in_session';

/**
 * Accepted batches of the BFF ledger (`GET /api/ledger?kind=batch`, issue 4), newest first, at
 * most `limit`; `batchCommandId` narrows to one batch.
 */
export async function getLedgerBatches(
  query: { batchCommandId?: string; limit?: number },
  signal?: AbortSignal,
): Promise<BatchRecord[]> {
  const page = await apiRequest('/ledger', LedgerPageSchema, {
    query: {
      kind: 'batch',
      batchCommandId: query.batchCommandId,
      limit: query.limit === undefined ? undefined : String(query.limit),
    },
    signal,
  });
  return page.entries.flatMap((entry) => {
    const record = batchRecordFromLedger(entry);
    return record ? [record] : [];
  });
}

/**
 * One batch: the copy this browser session kept at submission (never refetched), else the BFF
 * ledger's record. A batch in neither is refused with words saying so.
 */
export const batchRecordQueryOptions = (batchCommandId: string) =>
  queryOptions<BatchRecord>({
    queryKey: batchKeys.detail(batchCommandId),
    queryFn: async ({ signal }) => {
      const [record] = await getLedgerBatches({ batchCommandId, limit: 1 }, signal);
      if (record) return record;
      throw new ApiError({
        status: 404,
        code: BATCH_NOT_IN_SESSION,
        title: 'Batch not known here',
        detail: `Batch ${batchCommandId} is neither in this browser session nor in the ledger of the signed-in client, so its devices cannot be listed. Check the batch ID.`,
      });
    },
    staleTime: Infinity,
    gcTime: Infinity,
  });

export const useBatchRecord = (batchCommandId: string) =>
  useQuery(batchRecordQueryOptions(batchCommandId));

/** The batches submitted in this browser session, newest first (kept, never refetched). */
export const batchListQueryOptions = () =>
  queryOptions<BatchRecord[]>({
    queryKey: batchKeys.list(),
    queryFn: () => Promise.resolve([]),
    staleTime: Infinity,
    gcTime: Infinity,
  });

export const useBatchList = () => useQuery(batchListQueryOptions());

/** The latest accepted batches of the ledger (who, when, how many devices). */
export const ledgerBatchListQueryOptions = () =>
  queryOptions({
    queryKey: batchKeys.ledgerList(),
    queryFn: ({ signal }) => getLedgerBatches({ limit: 100 }, signal),
    staleTime: 10_000,
  });

export const useLedgerBatchList = () => useQuery(ledgerBatchListQueryOptions());
