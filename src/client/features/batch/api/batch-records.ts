import { queryOptions, useQuery } from '@tanstack/react-query';
import type { DeviceCommand } from '../../../../domain/command.ts';
import { ApiError } from '../../../lib/api-error.ts';
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
}

/** Code of the refusal when a batch is not known to this browser session. */
export const BATCH_NOT_IN_SESSION = 'batch_not_in_session';

/**
 * The batches of this browser session live in the query cache only (never refetched, never
 * collected): the BFF ledger that would list every batch (issue 4) has no read route yet. A batch
 * page opened for another batch says so instead of guessing.
 */
export const batchRecordQueryOptions = (batchCommandId: string) =>
  queryOptions<BatchRecord>({
    queryKey: batchKeys.detail(batchCommandId),
    queryFn: () =>
      Promise.reject(
        new ApiError({
          status: 404,
          code: BATCH_NOT_IN_SESSION,
          title: 'Batch not known here',
          detail: `Batch ${batchCommandId} was not submitted in this browser session, and the batch ledger is not available yet, so its devices cannot be listed. Open it from the tab that submitted it.`,
        }),
      ),
    staleTime: Infinity,
    gcTime: Infinity,
  });

export const useBatchRecord = (batchCommandId: string) =>
  useQuery(batchRecordQueryOptions(batchCommandId));

/** The batches submitted in this browser session, newest first. */
export const batchListQueryOptions = () =>
  queryOptions<BatchRecord[]>({
    queryKey: batchKeys.list(),
    queryFn: () => Promise.resolve([]),
    staleTime: Infinity,
    gcTime: Infinity,
  });

export const useBatchList = () => useQuery(batchListQueryOptions());
