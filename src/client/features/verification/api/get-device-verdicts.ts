import { useEffect } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { DeviceVerdictsAnswerSchema, type DeviceVerdictsAnswer } from '#domain/verdict-answer.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { isLive, usePushState } from '#client/lib/push-stream.ts';
import { refetchWhileFailing } from '#client/lib/refetch-while-failing.ts';
import { verdictKeys } from './verdict-keys.ts';

/**
 * How often a device's verdicts are read again while live updates are off, ms: a verdict comes a
 * minute after a window ends (docs/verification.md); while live, `deviceVerdictsChanged` says so.
 */
export const VERDICTS_POLL_MS = 60_000;

/**
 * `GET /api/devices/{deviceId}/verdicts`: the device's verdicts, newest window first, each with
 * its window's samples. Rejects with ApiError: 404 for a device of an unbound site,
 * `unexpected_response` for an answer not of `DeviceVerdictsAnswerSchema`.
 */
export function getDeviceVerdicts(
  deviceId: string,
  signal?: AbortSignal,
): Promise<DeviceVerdictsAnswer> {
  return apiRequest(
    `/devices/${encodeURIComponent(deviceId)}/verdicts`,
    DeviceVerdictsAnswerSchema,
    { signal },
  );
}

/**
 * One device's verdicts: stale on each pushed `deviceVerdictsChanged` of the device
 * (`app/push-updates.ts`), polled every {@link VERDICTS_POLL_MS} while `live` is false, and every
 * 15 s while a read fails, its last answer kept on screen.
 */
export const deviceVerdictsQueryOptions = (deviceId: string, live = false) =>
  queryOptions({
    queryKey: verdictKeys.device(deviceId),
    queryFn: ({ signal }) => getDeviceVerdicts(deviceId, signal),
    refetchInterval: refetchWhileFailing(live ? false : VERDICTS_POLL_MS),
  });

/** The device's verdicts, polled less while pushed updates are live. */
export const useDeviceVerdicts = (deviceId: string) =>
  useQuery(deviceVerdictsQueryOptions(deviceId, isLive(usePushState())));

/** How often an open device page says it watches a running window, ms; the BFF reads at most every five minutes. */
export const WATCH_EVERY_MS = 60_000;

const WatchAnswerSchema = z.object({ deviceId: z.string(), windowsDue: z.number() });

/**
 * `POST /api/devices/{deviceId}/watch` while `running` and the page is visible, at once and every
 * {@link WATCH_EVERY_MS}: the BFF then reads the device's running windows inside its budget and
 * the verdicts answer them judged so far (docs/verification.md, While a window runs). A failed
 * call is left to the next: watching is a wish, not an action of the operator's.
 */
export function useWatchRunningWindows(deviceId: string, running: boolean): void {
  useEffect(() => {
    if (!running) return undefined;
    const controller = new AbortController();
    const watch = () => {
      if (document.visibilityState !== 'visible') return;
      apiRequest(`/devices/${encodeURIComponent(deviceId)}/watch`, WatchAnswerSchema, {
        method: 'POST',
        signal: controller.signal,
      }).catch(() => undefined);
    };
    watch();
    const timer = setInterval(watch, WATCH_EVERY_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [deviceId, running]);
}
