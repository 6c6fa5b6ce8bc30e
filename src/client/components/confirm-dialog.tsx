import type { ReactNode } from 'react';
import { Dialog } from './dialog.tsx';

/** How a confirmation is answered: what its two buttons do. */
export interface ConfirmAnswers {
  onConfirm: () => void;
  onDismiss: () => void;
}

export interface ConfirmDialogProps extends ConfirmAnswers {
  title: string;
  /** What will happen, in the operator's words (devices, window in site time). */
  children: ReactNode;
  /** Name of the button that does the thing, e.g. "Unbind site". */
  confirmLabel: string;
  /** Name of the button that backs out, e.g. "Keep site". Never "Cancel": it would be ambiguous. */
  dismissLabel: string;
}

/**
 * A confirmation before a destructive action ({@link Dialog} as `alertdialog`), mounted only while
 * asked for; the dismiss button takes first focus so Enter never confirms by accident.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  dismissLabel,
  onConfirm,
  onDismiss,
}: ConfirmDialogProps) {
  return (
    <Dialog
      title={title}
      role="alertdialog"
      size="small"
      onClose={onDismiss}
      actions={
        <>
          <button type="button" autoFocus onClick={onDismiss}>
            {dismissLabel}
          </button>
          <button type="button" className="danger" onClick={onConfirm}>
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
