import type { TimeRangeMs } from '../../../../domain/history.ts';

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The range of the device page's command list: from about a day ago to 29 days ahead. It is read
 * through the history slots it meets (`historyRangeSlots`), shared with the other screens. The
 * end is rounded up to the hour so the range stays the same for an hour of visits.
 */
export function deviceCommandsRange(nowMs: number): TimeRangeMs {
  const endMs = Math.ceil(nowMs / HOUR_MS) * HOUR_MS + 29 * DAY_MS;
  return { startMs: endMs - 30 * DAY_MS, endMs };
}
