import { queryOptions, useQueries } from '@tanstack/react-query';
import { HistoryResponseSchema } from '../../../../domain/history.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { batchKeys } from './batch-keys.ts';

/**
 * One device's commands whose window intersects the batch's window (`GET /api/devices/{deviceId}/
 * commands?startTime&endTime`, DESIGN.md 3): all the pre-check needs to apply the overlap rule.
 * The window is at most what the form holds; the history range allows 30 days (spec 8), so a
 * longer window is read over its first 30 days only.
 */
export const precheckHistoryQueryOptions = (deviceId: string, startTime: string, endTime: string) =>
  queryOptions({
    queryKey: batchKeys.precheckDevice(deviceId, startTime, endTime),
    queryFn: ({ signal }) =>
      apiRequest(`/devices/${encodeURIComponent(deviceId)}/commands`, HistoryResponseSchema, {
        query: { startTime, endTime },
        signal,
      }),
    staleTime: 15_000,
  });

/** The commands over `window` of each device, or nothing while the window is not valid. */
export function usePrecheckHistories(
  deviceIds: readonly string[],
  window: { startTime: string; endTime: string } | null,
) {
  return useQueries({
    queries: deviceIds.map((deviceId) => ({
      ...precheckHistoryQueryOptions(deviceId, window?.startTime ?? '', window?.endTime ?? ''),
      enabled: window !== null,
    })),
  });
}
