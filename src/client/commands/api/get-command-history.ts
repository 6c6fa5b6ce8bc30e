import { queryOptions, useQueries, type QueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import type { StatusRecord } from '#domain/command.ts';
import {
  HistoryResponseSchema,
  historyRangeSlots,
  type HistoryQuery,
  type HistoryResponse,
  type TimeRangeMs,
} from '#domain/history.ts';
import { apiRequest } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { toUtcTimestamp } from '../../lib/time.ts';
import { mergeRecords, recordsMeeting } from '../lib/command-caches.ts';
import { commandKeys } from './command-keys.ts';

/** `GET /api/devices/{deviceId}/commands`: commands whose window meets the range, ≤ 30 days (docs/upstream.md, History). */
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

/**
 * The cache unit of a device's history: one fixed 30-day slot, shared by every screen whatever its
 * range. Mutations and status polls keep slots current, hence the long `staleTime`.
 */
export const historySlotQueryOptions = (deviceId: string, slot: TimeRangeMs) =>
  queryOptions({
    queryKey: commandKeys.history(deviceId, slot),
    queryFn: ({ signal }) =>
      getCommandHistory(
        deviceId,
        { startTime: toUtcTimestamp(slot.startMs), endTime: toUtcTimestamp(slot.endMs) },
        signal,
      ),
    staleTime: 30_000,
    gcTime: 5 * 60_000,
  });

/** Starts reading the slots of `range` (a route loader, before the page renders). */
export function prefetchDeviceHistory(
  queryClient: QueryClient,
  deviceId: string,
  range: TimeRangeMs,
): void {
  for (const slot of historyRangeSlots(range.startMs, range.endMs))
    void queryClient.prefetchQuery(historySlotQueryOptions(deviceId, slot));
}

/** The slots `range` meets, the same array while unchanged, so a pan inside a slot rebuilds nothing. */
function useHistorySlots(range: TimeRangeMs | null): TimeRangeMs[] {
  const slots = range ? historyRangeSlots(range.startMs, range.endMs) : [];
  const firstMs = slots[0]?.startMs ?? 0;
  const lastMs = slots.at(-1)?.endMs ?? 0;
  return useMemo(() => historyRangeSlots(firstMs, lastMs), [firstMs, lastMs]);
}

export type DeviceHistoryResult = {
  /** When the oldest slot was read (epoch ms); 0 before. Polling of a row starts from there. */
  dataUpdatedAt: number;
  refetch: () => Promise<void>;
} & (
  | { isPending: true; isError: false; isSuccess: false; data: undefined; error: null }
  | { isPending: false; isError: true; isSuccess: false; data: undefined; error: ApiError }
  | { isPending: false; isError: false; isSuccess: true; data: HistoryResponse; error: null }
);

interface SlotResult<T> {
  data?: T | undefined;
  error: ApiError | null;
  dataUpdatedAt: number;
  refetch: () => Promise<unknown>;
}

function combineDeviceHistory(results: SlotResult<StatusRecord[]>[]): DeviceHistoryResult {
  const refetch = async () => {
    await Promise.all(results.map((result) => result.refetch()));
  };
  const dataUpdatedAt = Math.min(...results.map((result) => result.dataUpdatedAt));
  const error = results.find((result) => result.error)?.error;
  if (error)
    return {
      isPending: false,
      isError: true,
      isSuccess: false,
      data: undefined,
      error,
      dataUpdatedAt,
      refetch,
    };
  if (results.length === 0 || results.some((result) => result.data === undefined))
    return {
      isPending: true,
      isError: false,
      isSuccess: false,
      data: undefined,
      error: null,
      dataUpdatedAt: 0,
      refetch,
    };
  const commands = mergeRecords(results.map((result) => result.data ?? []));
  return {
    isPending: false,
    isError: false,
    isSuccess: true,
    data: { commands },
    error: null,
    dataUpdatedAt,
    refetch,
  };
}

/**
 * One device's commands meeting `range` (epoch ms), read slot by slot and merged. Pending and
 * reading nothing while `range` is `null`; in error when any slot failed.
 */
export function useDeviceHistory(deviceId: string, range: TimeRangeMs | null): DeviceHistoryResult {
  const slots = useHistorySlots(range);
  const startMs = range?.startMs ?? 0;
  const endMs = range?.endMs ?? 0;
  const select = useCallback(
    (slot: HistoryResponse) => recordsMeeting(slot.commands, { startMs, endMs }),
    [startMs, endMs],
  );
  return useQueries({
    queries: slots.map((slot) => ({ ...historySlotQueryOptions(deviceId, slot), select })),
    combine: combineDeviceHistory,
  });
}

export interface DeviceHistory {
  deviceId: string;
  commands: StatusRecord[];
  isPending: boolean;
  error: ApiError | null;
}

/** Per slot: how often to read it again from what it holds now, or `false`. */
export type SlotPollMs = (slot: HistoryResponse | undefined) => number | false;

/**
 * Several devices' commands over the slots `range` meets (not narrowed), in `deviceIds` order,
 * with the count of failed reads; polled per `pollMs`. Nothing read while `range` is `null`.
 */
export function useDeviceHistories(
  deviceIds: readonly string[],
  range: TimeRangeMs | null,
  { pollMs }: { pollMs?: SlotPollMs } = {},
): { devices: DeviceHistory[]; failedSlots: number } {
  const slots = useHistorySlots(range);
  const combine = useCallback(
    (results: SlotResult<HistoryResponse>[]) => {
      let failedSlots = 0;
      const devices = deviceIds.map((deviceId, d): DeviceHistory => {
        const lists: StatusRecord[][] = [];
        let isPending = false;
        let error: ApiError | null = null;
        slots.forEach((_, s) => {
          const result = results[d * slots.length + s];
          if (result?.data) lists.push(result.data.commands);
          else if (!result?.error) isPending = true;
          if (result?.error) {
            failedSlots++;
            error ??= result.error;
          }
        });
        return { deviceId, commands: mergeRecords(lists), isPending, error };
      });
      return { devices, failedSlots };
    },
    [deviceIds, slots],
  );
  return useQueries({
    queries: deviceIds.flatMap((deviceId) =>
      slots.map((slot) => ({
        ...historySlotQueryOptions(deviceId, slot),
        ...(pollMs
          ? {
              refetchInterval: (query: { state: { data: HistoryResponse | undefined } }) =>
                pollMs(query.state.data),
            }
          : {}),
      })),
    ),
    combine,
  });
}
