import { queryOptions, useQuery } from '@tanstack/react-query';
import {
  HistoryResponseSchema,
  type HistoryQuery,
  type HistoryResponse,
} from '../../../../domain/history.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { commandKeys } from './command-keys.ts';

/**
 * `GET /api/devices/{deviceId}/commands?startTime=&endTime=&status=`: the device's commands whose
 * window intersects the range, at most 30 days (spec 4, 8; DESIGN.md 3 "History").
 */
export function getCommandHistory(
  deviceId: string,
  query: HistoryQuery,
  signal?: AbortSignal,
): Promise<HistoryResponse> {
  return apiRequest(`/devices/${encodeURIComponent(deviceId)}/commands`, HistoryResponseSchema, {
    query: { startTime: query.startTime, endTime: query.endTime, status: query.status },
    signal,
  });
}

export const commandHistoryQueryOptions = (deviceId: string, query: HistoryQuery) =>
  queryOptions({
    queryKey: commandKeys.list(deviceId, query),
    queryFn: ({ signal }) => getCommandHistory(deviceId, query, signal),
  });

export const useCommandHistory = (deviceId: string, query: HistoryQuery) =>
  useQuery(commandHistoryQueryOptions(deviceId, query));
