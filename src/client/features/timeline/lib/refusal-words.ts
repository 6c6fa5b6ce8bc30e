import type { DragRefusal } from './drag-refusal.ts';
import { windowInZone } from './window-words.ts';

/** Words for a refusal, naming the conflicting command and its window in the site's zone. */
export function refusalWords(refusal: DragRefusal, timeZone: string): string {
  if (refusal.kind === 'empty') return 'The window is empty: drag to give it a length.';
  if (refusal.kind === 'past') return 'Refused: the window starts in the past.';
  const { conflict } = refusal;
  return `Refused: overlaps command ${conflict.id} (${conflict.status}, ${windowInZone(
    conflict.startMs,
    conflict.endMs,
    timeZone,
  )}). Windows may touch but not overlap.`;
}
