import type { DragRefusal } from './drag-refusal.ts';
import { EDIT_LEAD_TIME_WORDS } from './edit-lock.ts';
import { queuedConflictWords } from './queued-windows.ts';
import { windowInZone } from './window-words.ts';

/** Words for a refusal, naming the conflicting command and its window in the site's zone. */
export function refusalWords(refusal: DragRefusal, timeZone: string): string {
  if (refusal.kind === 'empty') return 'The window is empty: drag to give it a length.';
  if (refusal.kind === 'past') return 'Refused: the window starts in the past.';
  if (refusal.kind === 'soon')
    return `Refused: the window starts within ${EDIT_LEAD_TIME_WORDS} of now; a command must reach the device before its window starts.`;
  const { conflict } = refusal;
  if (conflict.queued)
    return `Refused: overlaps ${queuedConflictWords(conflict.queued, timeZone)} (${windowInZone(
      conflict.startMs,
      conflict.endMs,
      timeZone,
    )}). Withdraw it first, or choose a window that only touches it.`;
  return `Refused: overlaps command ${conflict.id} (${conflict.status}, ${windowInZone(
    conflict.startMs,
    conflict.endMs,
    timeZone,
  )}). Windows may touch but not overlap.`;
}
