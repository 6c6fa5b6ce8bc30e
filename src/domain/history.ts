import { z } from 'zod';
import { CommandStatusSchema, StatusRecordSchema } from './command.ts';
import { DeviceReadStateSchema } from './read-model.ts';
import { UtcTimestampSchema } from './time.ts';

/** Longest range of one history query: 30 days (docs/upstream.md, History). */
export const MAX_HISTORY_RANGE_MS = 30 * 24 * 60 * 60 * 1000;

/** Why a history range is refused, or null when it is allowed (docs/upstream.md, History). */
export function historyRangeProblem(startMs: number, endMs: number): string | null {
  if (!(endMs > startMs)) return 'endTime must be after startTime';
  if (endMs - startMs > MAX_HISTORY_RANGE_MS)
    return 'the range may be at most 30 days; shorten it or split it into several queries';
  return null;
}

/** A span of time `[startMs, endMs)` in epoch milliseconds. */
export interface TimeRangeMs {
  startMs: number;
  endMs: number;
}

/**
 * The history ranges that cover `[startMs, endMs)`: fixed 30-day slots counted from the epoch,
 * so every view that touches a slot asks for (and caches) the same range, however the operator
 * pans or whatever window a pre-check covers. Each slot is a valid history range (docs/upstream.md, History); an
 * empty or reversed span gives none. A window longer than 30 days spans several slots, and all
 * of them must be read to see every command it meets.
 */
export function historyRangeSlots(startMs: number, endMs: number): TimeRangeMs[] {
  const slots: TimeRangeMs[] = [];
  if (!(endMs > startMs)) return slots;
  const first = Math.floor(startMs / MAX_HISTORY_RANGE_MS);
  for (let slot = first; slot * MAX_HISTORY_RANGE_MS < endMs; slot++)
    slots.push({ startMs: slot * MAX_HISTORY_RANGE_MS, endMs: (slot + 1) * MAX_HISTORY_RANGE_MS });
  return slots;
}

/**
 * Query of `GET /api/devices/{deviceId}/commands`: required UTC `startTime` and `endTime`, at most
 * 30 days apart (docs/upstream.md, History), optional `status`.
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

/**
 * Answer of the history query: the commands whose window meets the range, and, from the read
 * model (docs/architecture.md, Read model), the device's `version`, when it was last read from
 * the vendor (`readAt`) and whether a read of the range is still to come (`historyPending`).
 */
export const HistoryResponseSchema = z.object({
  commands: z.array(StatusRecordSchema),
  ...DeviceReadStateSchema.partial().shape,
});
export type HistoryResponse = z.infer<typeof HistoryResponseSchema>;
