import type { ReactNode } from 'react';
import { FocusScope } from 'react-aria';
import { Dialog as AriaDialog, Heading } from 'react-aria-components';
import './drawer.css';

export interface DrawerProps {
  /** The drawer's heading, which also names it for assistive technology. */
  title: ReactNode;
  children: ReactNode;
  /** Buttons kept at the drawer's bottom edge. */
  actions?: ReactNode;
  /** The Close button and Escape (while focus is in the drawer). */
  onClose: () => void;
  /** Open unless `false`; a drawer may also be mounted only while it is open. */
  isOpen?: boolean;
  /** Name of the header's close button. Default "Close". */
  closeLabel?: string;
  /** Extra class on the drawer element, for a feature's own styles. */
  className?: string;
}

/**
 * A non-modal side panel (details of a selection) over the right edge of the window: it floats
 * above the page instead of taking room from it, so the content under it keeps its size (a grid
 * does not reflow when details open). Focus moves into it when it opens and back to what was
 * focused before when it closes (React Aria's `FocusScope`, docs/decisions/003-component-kit.md);
 * Escape closes it; the page stays usable, so Tab may leave it and it is not `aria-modal`.
 *
 * @example
 * {selected ? (
 *   <Drawer title="Command details" onClose={() => setSelected(null)}>
 *     <StatusRecordList record={selected} timeZone={timeZone} />
 *   </Drawer>
 * ) : null}
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
