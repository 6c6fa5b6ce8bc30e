import { queryOptions, useQuery } from '@tanstack/react-query';
import { EventVerdictsAnswerSchema, type EventVerdictsAnswer } from '#domain/verdict-answer.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { isLive, usePushState } from '#client/lib/push-stream.ts';
import { refetchWhileFailing } from '#client/lib/refetch-while-failing.ts';
import { VERDICTS_POLL_MS } from './get-device-verdicts.ts';
import { verdictKeys } from './verdict-keys.ts';

/**
 * `GET /api/batches/{batchCommandId}/verdicts`: the batch's commanded against delivered power, the
 * count of each verdict and each device's (docs/verification.md, Fleet figures). Rejects with
 * ApiError: `unexpected_response` for an answer not of `EventVerdictsAnswerSchema`.
 */
export function getBatchVerdicts(
  batchCommandId: string,
  signal?: AbortSignal,
): Promise<EventVerdictsAnswer> {
  return apiRequest(
    `/batches/${encodeURIComponent(batchCommandId)}/verdicts`,
    EventVerdictsAnswerSchema,
    { signal },
  );
}

/** `GET /api/fleet-jobs/{jobId}/verdicts`: as {@link getBatchVerdicts}, over every batch of the job. */
export function getFleetJobVerdicts(
  jobId: string,
  signal?: AbortSignal,
): Promise<EventVerdictsAnswer> {
  return apiRequest(
    `/fleet-jobs/${encodeURIComponent(jobId)}/verdicts`,
    EventVerdictsAnswerSchema,
    { signal },
  );
}

/**
 * A batch's verdicts: stale on every pushed `deviceVerdictsChanged` (`app/push-updates.ts` makes
 * all of `verdictKeys.events()` stale, whatever the devices), polled every
 * {@link VERDICTS_POLL_MS} while `live` is false, every 15 s while a read fails.
 */
export const batchVerdictsQueryOptions = (batchCommandId: string, live = false) =>
  queryOptions({
    queryKey: verdictKeys.batch(batchCommandId),
    queryFn: ({ signal }) => getBatchVerdicts(batchCommandId, signal),
    refetchInterval: refetchWhileFailing(live ? false : VERDICTS_POLL_MS),
  });

/** A fleet job's verdicts, refreshed as {@link batchVerdictsQueryOptions}. */
export const fleetJobVerdictsQueryOptions = (jobId: string, live = false) =>
  queryOptions({
    queryKey: verdictKeys.fleetJob(jobId),
    queryFn: ({ signal }) => getFleetJobVerdicts(jobId, signal),
    refetchInterval: refetchWhileFailing(live ? false : VERDICTS_POLL_MS),
  });

/** A batch's verdicts; not read for a batch without a batch ID (`undefined`). */
export function useBatchVerdicts(batchCommandId: string | undefined) {
  const live = isLive(usePushState());
  return useQuery({
    ...batchVerdictsQueryOptions(batchCommandId ?? '', live),
    enabled: batchCommandId !== undefined,
  });
}

/** A fleet job's verdicts, polled less while pushed updates are live. */
export const useFleetJobVerdicts = (jobId: string) =>
  useQuery(fleetJobVerdictsQueryOptions(jobId, isLive(usePushState())));
