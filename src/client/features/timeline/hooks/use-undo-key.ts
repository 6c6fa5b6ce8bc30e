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

/** Ctrl/Cmd+Z outside text fields (and without Shift, which is redo) undoes the last schedule change. */
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
