import { z } from 'zod';
import { isApiError } from '#client/lib/api-error.ts';
import { problemWords } from '#client/lib/problem-words.ts';
import { windowInZone } from './window-words.ts';

const OverlapDetailsSchema = z.object({
  details: z.object({
    conflictingCommandId: z.string(),
    startTime: z.string(),
    endTime: z.string(),
  }),
});

/** Words for a refused submission; a `window_overlap` names the conflicting command on the site's clock. */
export function submitErrorWords(error: unknown, timeZone: string): string {
  if (!isApiError(error)) return 'The command could not be sent. Try again.';
  if (error.code === 'window_overlap') {
    const upstream = OverlapDetailsSchema.safeParse(error.upstream);
    if (upstream.success) {
      const { conflictingCommandId, startTime, endTime } = upstream.data.details;
      return `Refused: the window overlaps command ${conflictingCommandId} (${windowInZone(
        Date.parse(startTime),
        Date.parse(endTime),
        timeZone,
      )}). Choose a window that does not overlap it.`;
    }
  }
  return problemWords(error, timeZone);
}
