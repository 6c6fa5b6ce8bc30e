import { tzOffset } from '@date-fns/tz';

/** Default snapping step of drag-create and resize: 5 minutes. */
export const DEFAULT_SNAP_MS = 5 * 60 * 1000;

/**
 * Rounds `ms` to the nearest multiple of `stepMs` counted in the wall clock of `timeZone` (IANA
 * name; UTC when absent), so a 1-hour step lands on local full hours in Australia/Adelaide
 * (UTC+9:30/+10:30) too. A step of 0 or less returns `ms` unchanged.
 */
export function snapToStep(ms: number, stepMs: number, timeZone?: string): number {
  if (!(stepMs > 0)) return ms;
  const offsetMs = timeZone ? tzOffset(timeZone, new Date(ms)) * 60_000 : 0;
  const snapped = Math.round((ms + offsetMs) / stepMs) * stepMs - offsetMs;
  if (!timeZone) return snapped;
  // Across a DST change the offset at the snapped instant may differ; re-anchor once on it.
  const offsetAfterMs = tzOffset(timeZone, new Date(snapped)) * 60_000;
  return offsetAfterMs === offsetMs
    ? snapped
    : Math.round((ms + offsetAfterMs) / stepMs) * stepMs - offsetAfterMs;
}
