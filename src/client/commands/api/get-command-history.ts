import { queryOptions, useQueries, type QueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import type { StatusRecord } from '../../../domain/command.ts';
import {
  HistoryResponseSchema,
  historyRangeSlots,
  type HistoryQuery,
  type HistoryResponse,
  type TimeRangeMs,
} from '../../../domain/history.ts';
import { apiRequest } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { toUtcTimestamp } from '../../lib/time.ts';
import { mergeRecords, recordsMeeting } from '../lib/command-caches.ts';
import { commandKeys } from './command-keys.ts';

/**
 * `GET /api/devices/{deviceId}/commands?startTime=&endTime=&status=`: the device's commands whose
 * window intersects the range, at most 30 days (docs/upstream.md, History). Rejects with ApiError,
 * e.g. 403 `site_not_bound`.
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

/**
 * The cache unit of a device's history: one fixed 30-day slot of `historyRangeSlots`. Every
 * screen (device page, history, timeline, batch pre-check) reads the slots its range meets, so
 * they share one cache entry per device and slot however their ranges differ. Mutations and
 * status polls keep the slots current, hence the long `staleTime`.
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

/**
 * The slots `range` meets, the same array while they stay the same (a pan inside a slot changes
 * the range, not its slots), so the queries and their combination are not rebuilt for nothing.
 */
function useHistorySlots(range: TimeRangeMs | null): TimeRangeMs[] {
  const slots = range ? historyRangeSlots(range.startMs, range.endMs) : [];
  const firstMs = slots[0]?.startMs ?? 0;
  const lastMs = slots.at(-1)?.endMs ?? 0;
  return useMemo(() => historyRangeSlots(firstMs, lastMs), [firstMs, lastMs]);
}

/** A device's history over a range, read slot by slot: as a query result reads. */
export type DeviceHistoryResult = {
  /** When the oldest slot was read (epoch ms); 0 before. Polling of a row starts from there. */
  dataUpdatedAt: number;
  /** Reads every slot of the range again. */
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
 * One device's commands whose window meets `range` (epoch ms): the slots the range meets,
 * each narrowed to the range with `select`, merged (a window across a slot border once). A
 * range of up to 30 days meets at most two slots. Reads nothing and stays pending while `range`
 * is `null` (a range the screen refuses); in error when any slot failed.
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

/** One device's part of {@link useDeviceHistories}. */
export interface DeviceHistory {
  deviceId: string;
  /** The commands of the slots read so far, merged, by start time. */
  commands: StatusRecord[];
  /** True while a slot has not answered yet. */
  isPending: boolean;
  /** The first slot's failure, else `null`. */
  error: ApiError | null;
}

/** Per slot: how often to read it again from what it holds now, or `false`. */
export type SlotPollMs = (slot: HistoryResponse | undefined) => number | false;

/**
 * The commands of several devices over the slots `range` meets, whole (not narrowed to the
 * range), one {@link DeviceHistory} per device in `deviceIds` order, and how many slot reads
 * failed. For the screens that read many devices at once: the timeline (with `pollMs` while a
 * slot holds a live command) and the batch pre-check. Nothing is read while `range` is `null`.
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
