import { z } from 'zod';

/** An ISO 8601 timestamp in UTC with a `Z` designator, e.g. `2026-11-21T02:00:00Z` (docs/upstream.md, Commands). */
export const UtcTimestampSchema = z.iso.datetime({
  error: 'must be an ISO 8601 UTC timestamp such as 2026-11-21T02:00:00Z',
});

export type UtcTimestamp = z.infer<typeof UtcTimestampSchema>;

/**
 * `14:05:20 site time (13:05:20 UTC)`: a moment on a site's wall clock with UTC beside, for the
 * words of a refusal or a queued change; `13:05:20 UTC` for a site on UTC or a zone the runtime
 * does not know. Seconds are kept: the budget of upstream calls frees slots to the second.
 */
export function siteClockWords(epochMs: number, timeZone: string | undefined): string {
  const utc = `${clock(epochMs, 'UTC')} UTC`;
  if (!timeZone || timeZone === 'UTC') return utc;
  try {
    return `${clock(epochMs, timeZone)} site time (${utc})`;
  } catch {
    return utc;
  }
}

function clock(epochMs: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(epochMs);
}
