import type { ReactNode } from 'react';
import { Dialog } from './dialog.tsx';

export interface ConfirmDialogProps {
  title: string;
  /** What will happen, in the operator's words (devices, window in site time). */
  children: ReactNode;
  /** Name of the button that does the thing, e.g. "Unbind site". */
  confirmLabel: string;
  /** Name of the button that backs out, e.g. "Keep site". Never "Cancel": it would be ambiguous. */
  dismissLabel: string;
  onConfirm: () => void;
  /** The dismiss button, Escape. */
  onDismiss: () => void;
}

/**
 * A confirmation before a destructive action, on {@link Dialog} as an `alertdialog`: mounted only
 * while asked for; the dismiss button takes the first focus so Enter never confirms by accident;
 * Escape dismisses; focus returns to the opener when it closes.
 *
 * @example
 * {unbindTarget ? (
 *   <ConfirmDialog title="Unbind Leipzig Solar Park?" confirmLabel="Unbind site"
 *     dismissLabel="Keep site" onDismiss={close} onConfirm={unbind}>
 *     <p>powerdeck will no longer reach its 60 devices.</p>
 *   </ConfirmDialog>
 * ) : null}
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
