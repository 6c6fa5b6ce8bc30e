import { useCallback, type KeyboardEvent } from 'react';

/** True for a target whose own Ctrl+Z undoes typing (a text field), which is left alone. */
function editsText(target: EventTarget): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable ||
      target instanceof HTMLTextAreaElement ||
      (target instanceof HTMLInputElement &&
        !['checkbox', 'radio', 'button'].includes(target.type)))
  );
}

/**
 * The `onKeyDown` of the timeline: Ctrl+Z (Cmd+Z on a Mac) undoes the last schedule change, as
 * the Undo of its toast does; outside text fields, without Shift (Ctrl+Shift+Z is redo elsewhere).
 */
export function useUndoKey(onUndo: () => void) {
  return useCallback(
    (event: KeyboardEvent) => {
      if (event.key.toLowerCase() !== 'z' || event.shiftKey || event.altKey) return;
      if (!(event.ctrlKey || event.metaKey) || editsText(event.target)) return;
      event.preventDefault();
      onUndo();
    },
    [onUndo],
  );
}
