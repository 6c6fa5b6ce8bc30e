import type { ReactNode } from 'react';
import { FocusScope } from 'react-aria';
import { Dialog as AriaDialog, Heading } from 'react-aria-components';
import './drawer.css';

export interface DrawerProps {
  title: ReactNode;
  children: ReactNode;
  /** Buttons kept at the drawer's bottom edge. */
  actions?: ReactNode;
  /** The Close button and Escape (while focus is in the drawer). */
  onClose: () => void;
  isOpen?: boolean;
  /** Name of the header's close button. Default "Close". */
  closeLabel?: string;
  className?: string;
}

/**
 * A non-modal side panel over the window's right edge: it floats, so the page under it keeps its
 * size. Focus moves in on open and back on close (`FocusScope`, docs/decisions/003-component-kit.md);
 * Escape closes; Tab may leave it (not `aria-modal`).
 */
export function Drawer({
  title,
  children,
  actions,
  onClose,
  isOpen = true,
  closeLabel = 'Close',
  className,
}: DrawerProps) {
  if (!isOpen) return null;
  return (
    <FocusScope restoreFocus autoFocus>
      <div
        className={className ? `drawer ${className}` : 'drawer'}
        onKeyDown={(event) => {
          // A menu or popover inside handles its own Escape and marks the event as handled.
          if (event.key !== 'Escape' || event.defaultPrevented) return;
          event.stopPropagation();
          onClose();
        }}
      >
        <AriaDialog className="drawer-dialog">
          <div className="drawer-header">
            <Heading slot="title" className="drawer-title">
              {title}
            </Heading>
            <button type="button" className="small" onClick={onClose}>
              {closeLabel}
            </button>
          </div>
          <div className="drawer-body">{children}</div>
          {actions ? <div className="drawer-actions actions">{actions}</div> : null}
        </AriaDialog>
      </div>
    </FocusScope>
  );
}
