import type { TimeRangeMs } from '#domain/history.ts';

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/** The device page's range: a day ago to 29 days ahead, its end rounded up to the hour so the cached range holds for an hour. */
export function deviceCommandsRange(nowMs: number): TimeRangeMs {
  const endMs = Math.ceil(nowMs / HOUR_MS) * HOUR_MS + 29 * DAY_MS;
  return { startMs: endMs - 30 * DAY_MS, endMs };
}
