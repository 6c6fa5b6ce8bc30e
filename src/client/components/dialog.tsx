import type { ReactNode } from 'react';
import { Dialog as AriaDialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import './dialog.css';

/** Widths of a dialog: `small` for a confirmation, `medium` for a form, `large` for two columns. */
export type DialogSize = 'small' | 'medium' | 'large';

export interface DialogProps {
  title: ReactNode;
  /** The body; it scrolls inside the dialog when the window is too short. */
  children: ReactNode;
  /** Buttons kept in view however far the body scrolls (a `.actions` row in a body `<form>` sticks too). */
  actions?: ReactNode;
  /** Escape, or a click outside when `isDismissable`: the owner closes the dialog. */
  onClose: () => void;
  isOpen?: boolean;
  /** `alertdialog` for a confirmation that interrupts (a destructive action). Default `dialog`. */
  role?: 'dialog' | 'alertdialog';
  /** Default `medium` (46rem, less the window's margins). */
  size?: DialogSize;
  /** Whether a click on the backdrop closes it; off by default so typed values are not lost. */
  isDismissable?: boolean;
  className?: string;
}

/**
 * A modal dialog (React Aria): focus moves in, stays, and returns on close; Escape closes; the page
 * behind is inert. Never taller than the window: title and `actions` stay in view, the body scrolls.
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
