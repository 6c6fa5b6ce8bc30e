import { z } from 'zod';
import { UtcTimestampSchema } from './time.ts';

/** An effective window in epoch milliseconds, half-open: `[startMs, endMs)` (docs/upstream.md, Lifecycle). */
export interface WindowMs {
  startMs: number;
  endMs: number;
}

/** An effective window as the wire carries it: two ISO 8601 UTC timestamps. */
export interface TimeWindow {
  startTime: string;
  endTime: string;
}

/** Converts a wire window to epoch milliseconds. */
export function toWindowMs(window: TimeWindow): WindowMs {
  return { startMs: Date.parse(window.startTime), endMs: Date.parse(window.endTime) };
}

/**
 * True when two half-open windows share at least one instant. Windows that touch (one's end equals
 * the other's start) do not overlap (docs/upstream.md, Lifecycle).
 */
export function windowsOverlap(a: WindowMs, b: WindowMs): boolean {
  return a.startMs < b.endMs && b.startMs < a.endMs;
}

/** Refinement for any object with `startTime`/`endTime`: end strictly after start (docs/upstream.md, Commands). */
export function endAfterStart(window: TimeWindow): boolean {
  return Date.parse(window.endTime) > Date.parse(window.startTime);
}

/**
 * True when the window has ended at `nowMs` (epoch ms, the upstream's clock): its end at or before
 * now. The vendor refuses such a window (docs/upstream.md, Commands: 400 `INVALID_REQUEST`), so
 * the sandbox refuses it with this rule and the BFF checks it before sending or queueing a change;
 * a window that began but has not ended is accepted and starts at once.
 */
export function windowHasEnded(window: TimeWindow, nowMs: number): boolean {
  return Date.parse(window.endTime) <= nowMs;
}

/** An operator's words for a change refused by {@link windowHasEnded}. */
export const WINDOW_ENDED_WORDS =
  'Nothing was sent: this window has already ended. Choose a window that ends later.';

/** Schema of a bare effective window, end after start. */
export const TimeWindowSchema = z
  .object({ startTime: UtcTimestampSchema, endTime: UtcTimestampSchema })
  .refine(endAfterStart, { error: 'endTime must be after startTime', path: ['endTime'] });
