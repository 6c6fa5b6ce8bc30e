import { z } from 'zod';

/** An ISO 8601 timestamp in UTC with a `Z` designator, e.g. `2026-11-21T02:00:00Z` (docs/upstream.md, Commands). */
export const UtcTimestampSchema = z.iso.datetime({
  error: 'must be an ISO 8601 UTC timestamp such as 2026-11-21T02:00:00Z',
});

export type UtcTimestamp = z.infer<typeof UtcTimestampSchema>;
