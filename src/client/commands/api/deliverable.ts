import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  DeliverableAnswerSchema,
  type DeliverableAnswer,
  type DeliverableRequest,
} from '#domain/deliverable.ts';
import { PowerControlSchema, type PowerControl } from '#domain/power-control.ts';
import { apiRequest } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { toUtcTimestamp } from '../../lib/time.ts';
import type { CommandDraft } from '../lib/command-form-values.ts';
import { commandKeys } from './command-keys.ts';

/**
 * `POST /api/deliverable` (docs/verification.md, Deliverable power before sending): what the
 * devices can deliver for the command's window, from a fresh snapshot of their latest samples,
 * and those that did not follow their recent commands. Without a command only the flags come.
 */
export function getDeliverable(
  request: DeliverableRequest,
  signal?: AbortSignal,
): Promise<DeliverableAnswer> {
  return apiRequest('/deliverable', DeliverableAnswerSchema, {
    method: 'POST',
    body: request,
    signal,
  });
}

/** How long typing rests before the snapshot is asked for, ms: one request per pause, not per key. */
export const DELIVERABLE_PAUSE_MS = 500;

/**
 * The request for what the form holds: the command when its window is valid and it sets a target
 * battery power other than 0 W (its cut-offs and limits too when each is in range), else the
 * devices alone, for their flags.
 */
export function deliverableRequestOf(
  deviceIds: readonly string[],
  draft: CommandDraft,
): DeliverableRequest {
  const typed = draft.powerControl ?? {};
  const target = typed.targetBatteryPowerW;
  const controls: Partial<PowerControl>[] = [typed, { targetBatteryPowerW: target }];
  const powerControl = controls
    .map((control) => PowerControlSchema.safeParse(control))
    .find((parsed) => parsed.success)?.data;
  if (!draft.window || target === undefined || target === 0 || !powerControl)
    return { deviceIds: [...deviceIds] };
  return {
    deviceIds: [...deviceIds],
    command: {
      powerControl,
      startTime: toUtcTimestamp(draft.window.startMs),
      endTime: toUtcTimestamp(draft.window.endMs),
    },
  };
}

/** `value`, once it has not changed for `pauseMs`. */
function useSettled<T>(value: T, key: string, pauseMs: number): T {
  const [settled, setSettled] = useState({ key, value });
  useEffect(() => {
    if (key === settled.key) return;
    const timer = setTimeout(() => setSettled({ key, value }), pauseMs);
    return () => clearTimeout(timer);
  }, [key, value, settled.key, pauseMs]);
  return settled.value;
}

/** The query of one request: a snapshot is a few minutes fresh on the server, so asking again sooner reads nothing new. */
export const deliverableQueryOptions = (request: DeliverableRequest) =>
  queryOptions<DeliverableAnswer, ApiError>({
    queryKey: [...commandKeys.all, 'deliverable', request],
    queryFn: ({ signal }) => getDeliverable(request, signal),
    enabled: request.deviceIds.length > 0,
    staleTime: 60_000,
    retry: false,
    placeholderData: keepPreviousData,
  });

/**
 * The deliverable power of a selection as the form changes, asked once typing rests; the last
 * answer stays shown while the next is read. Nothing is asked for no device.
 */
export function useDeliverable(deviceIds: readonly string[], draft: CommandDraft) {
  const request = deliverableRequestOf(deviceIds, draft);
  const key = JSON.stringify(request);
  const settled = useSettled(request, key, DELIVERABLE_PAUSE_MS);
  const query = useQuery(deliverableQueryOptions(settled));
  return {
    data: query.data,
    error: query.error,
    isFetching: query.isFetching,
    refetch: query.refetch,
    /** The form changed since the answer asked for: a newer one is on its way. */
    settling: key !== JSON.stringify(settled),
  };
}
