import { useEffect, useId, useRef, type ReactNode } from 'react';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  /** Name of the button that does the thing, e.g. "Unbind site". */
  confirmLabel: string;
  /** Name of the button that backs out, e.g. "Keep site". Never "Cancel": it would be ambiguous. */
  dismissLabel: string;
  onConfirm: () => void;
  onDismiss: () => void;
}

/**
 * A modal confirmation on the native `<dialog>` (`showModal`): focus is trapped and the rest of
 * the page is inert while it is open, Escape dismisses. Mounted only while asked for; the
 * dismiss button takes the first focus so Enter never confirms a destructive action by accident;
 * focus returns to the opener when it closes.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  dismissLabel,
  onConfirm,
  onDismiss,
}: ConfirmDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    // The dialog leaves the DOM when closed, so the browser cannot return focus by itself.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  return (
    <dialog
      ref={dialogRef}
      className="confirm-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onDismiss();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="confirm-dialog-body">{children}</div>
      <div className="actions">
        <button type="button" autoFocus onClick={onDismiss}>
          {dismissLabel}
        </button>
        <button type="button" className="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
