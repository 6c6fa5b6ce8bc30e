import { z } from 'zod';
import { CommandStatusSchema, StatusRecordSchema } from './command.ts';
import { UtcTimestampSchema } from './time.ts';

/** Longest range of one history query: 30 days (spec 8). */
export const MAX_HISTORY_RANGE_MS = 30 * 24 * 60 * 60 * 1000;

/** Why a history range is refused, or null when it is allowed (spec 4 and 8). */
export function historyRangeProblem(startMs: number, endMs: number): string | null {
  if (!(endMs > startMs)) return 'endTime must be after startTime';
  if (endMs - startMs > MAX_HISTORY_RANGE_MS)
    return 'the range may be at most 30 days (spec 8); shorten it or split it into several queries';
  return null;
}

/**
 * Query of `GET /devices/{deviceId}/commands` (path and names our choice, DESIGN.md 3): required
 * UTC `startTime` and `endTime`, at most 30 days apart, optional `status`.
 */
export const HistoryQuerySchema = z
  .strictObject({
    startTime: UtcTimestampSchema,
    endTime: UtcTimestampSchema,
    status: CommandStatusSchema.optional(),
  })
  .superRefine((query, ctx) => {
    const problem = historyRangeProblem(Date.parse(query.startTime), Date.parse(query.endTime));
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['endTime'] });
  });
export type HistoryQuery = z.infer<typeof HistoryQuerySchema>;

/** Response of the history query: commands whose window intersects the range. */
export const HistoryResponseSchema = z.object({ commands: z.array(StatusRecordSchema) });
export type HistoryResponse = z.infer<typeof HistoryResponseSchema>;
