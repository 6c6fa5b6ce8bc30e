import type { WindowMs } from '#domain/time-window.ts';
import { EDIT_LEAD_TIME_MS } from './edit-lock.ts';
import type { DeviceOverlapIndex, IndexedWindow } from './overlap-index.ts';

/** Why a dragged window cannot be submitted, or null when it can. */
export type DragRefusal =
  | { kind: 'empty' }
  | { kind: 'past' }
  | { kind: 'soon' }
  | { kind: 'overlap'; conflict: IndexedWindow };

/**
 * The live verdict on a window drawn, moved, pasted or copied: empty, starting in the past or
 * within the lead time (lib/edit-lock.ts), or overlapping an active command (docs/upstream.md,
 * Commands and Lifecycle). O(log n).
 */
export function dragRefusal(
  window: WindowMs,
  nowMs: number,
  index: DeviceOverlapIndex | undefined,
  ignoreId?: string,
): DragRefusal | null {
  if (!(window.endMs > window.startMs)) return { kind: 'empty' };
  if (window.startMs < nowMs) return { kind: 'past' };
  if (window.startMs < nowMs + EDIT_LEAD_TIME_MS) return { kind: 'soon' };
  const conflict = index?.findOverlap(window, ignoreId);
  return conflict ? { kind: 'overlap', conflict } : null;
}
