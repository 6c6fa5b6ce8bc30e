import type { HistoryQuery } from '../../../../domain/history.ts';
import { MAX_HISTORY_RANGE_MS } from '../../../../domain/history.ts';
import { toUtcTimestamp } from '../../../lib/time.ts';

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The range of the device page's command list: from about a day ago to 29 days ahead, exactly
 * the 30 days one history query may span (spec 8). The end is rounded up to the hour so the
 * range, and with it the query key, stays the same for an hour of visits.
 */
export function deviceHistoryRange(nowMs: number): HistoryQuery {
  const endMs = Math.ceil(nowMs / HOUR_MS) * HOUR_MS + 29 * DAY_MS;
  return {
    startTime: toUtcTimestamp(endMs - MAX_HISTORY_RANGE_MS),
    endTime: toUtcTimestamp(endMs),
  };
}
