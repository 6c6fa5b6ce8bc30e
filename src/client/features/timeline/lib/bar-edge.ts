import { isEditableStatus } from '#domain/command.ts';
import type { Bar } from './bars.ts';

/** Which part of an editable bar a drag changes: the whole window, or one end (resize). */
export type BarEdge = 'both' | 'start' | 'end';

/** How close to a bar's end, in CSS pixels, a press grabs that end. */
const EDGE_GRAB_PX = 6;

/** The part of `bar` under the pointer at `ms`: an end only on an editable bar wide enough to keep a middle. */
export function edgeUnder(bar: Bar, ms: number, msPerPx: number): BarEdge {
  if (!isEditableStatus(bar.status)) return 'both';
  const widthPx = (bar.endMs - bar.startMs) / msPerPx;
  if (widthPx < 3 * EDGE_GRAB_PX) return 'both';
  if (Math.abs(ms - bar.startMs) / msPerPx <= EDGE_GRAB_PX) return 'start';
  if (Math.abs(ms - bar.endMs) / msPerPx <= EDGE_GRAB_PX) return 'end';
  return 'both';
}
