import { tzOffset } from '@date-fns/tz';

/** Default snapping step of drag-create and resize: 5 minutes. */
export const DEFAULT_SNAP_MS = 5 * 60 * 1000;

/** Rounds `ms` to `stepMs` on `timeZone`'s wall clock (so 1 h lands on local hours in Adelaide); step ≤ 0: unchanged. */
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
