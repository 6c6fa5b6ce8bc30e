import type { ReactNode } from 'react';
import { Dialog as AriaDialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import './dialog.css';

/** Widths of a dialog: `small` for a confirmation, `medium` for a form, `large` for two columns. */
export type DialogSize = 'small' | 'medium' | 'large';

export interface DialogProps {
  /** The dialog's heading, which also names it for assistive technology. */
  title: ReactNode;
  /** The body. When the window is too short for it, the body scrolls inside the dialog. */
  children: ReactNode;
  /**
   * Buttons under the body, always in view however far the body scrolls. A form in the body may
   * keep its own buttons instead: a `.actions` row directly inside a `<form>` in the body sticks to
   * the dialog's bottom edge the same way.
   */
  actions?: ReactNode;
  /** Escape, or a click outside when `isDismissable`: the owner closes the dialog. */
  onClose: () => void;
  /** Open unless `false`; a dialog may also be mounted only while it is open. */
  isOpen?: boolean;
  /** `alertdialog` for a confirmation that interrupts (a destructive action). Default `dialog`. */
  role?: 'dialog' | 'alertdialog';
  /** Default `medium` (46rem, less the window's margins). */
  size?: DialogSize;
  /** Whether a click on the backdrop closes it; off by default so typed values are not lost. */
  isDismissable?: boolean;
  /** Extra class on the dialog element, for a feature's own styles. */
  className?: string;
}

/**
 * A modal dialog (React Aria's `ModalOverlay` > `Modal` > `Dialog`): focus moves into it (the
 * first focusable element, or one marked `autoFocus`), stays in it while open and returns to what
 * was focused before when it closes; Escape closes it; the page behind is hidden from assistive
 * technology and does not scroll. It is never taller than the window: the title and `actions`
 * stay in view and the body scrolls between them, so Submit can always be reached.
 *
 * @example
 * {editing ? (
 *   <Dialog title="New command" onClose={() => setEditing(false)}>
 *     <CommandForm … onCancel={() => setEditing(false)} />
 *   </Dialog>
 * ) : null}
 */
export function Dialog({
  title,
  children,
  actions,
  onClose,
  isOpen = true,
  role = 'dialog',
  size = 'medium',
  isDismissable = false,
  className,
}: DialogProps) {
  return (
    <ModalOverlay
      className="modal-overlay"
      isOpen={isOpen}
      isDismissable={isDismissable}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      <Modal className={`modal modal-${size}`}>
        <AriaDialog role={role} className={className ? `dialog ${className}` : 'dialog'}>
          <Heading slot="title" className="dialog-title">
            {title}
          </Heading>
          <div className="dialog-body">{children}</div>
          {actions ? <div className="dialog-actions actions">{actions}</div> : null}
        </AriaDialog>
      </Modal>
    </ModalOverlay>
  );
}
