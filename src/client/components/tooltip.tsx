import type { DOMAttributes, ReactElement, ReactNode } from 'react';
import { Focusable, Tooltip as AriaTooltip, TooltipTrigger } from 'react-aria-components';
import './tooltip.css';

export interface TooltipProps {
  /** What the tooltip says: a short supplement to the trigger's own name, never the only label. */
  content: ReactNode;
  /**
   * The trigger: one native focusable element (`<button>`, `<a>`) that accepts a ref; it is wrapped
   * in React Aria's `Focusable`, which gives it the hover and focus handlers.
   */
  children: ReactElement<DOMAttributes<Element>, string>;
  /** Side of the trigger it shows on; flips to the other side when there is no room. Default top. */
  placement?: 'top' | 'bottom' | 'start' | 'end';
  /** Hover delay before it shows, in ms (keyboard focus shows it at once). Default 600. */
  delayMs?: number;
}

/**
 * A tooltip on hover and keyboard focus (React Aria's `TooltipTrigger`), hidden by Escape. It sits
 * beside its trigger, 8 px away, never over it, and keeps to one side (above by default) so the
 * actions next to the trigger in the same row stay uncovered and clickable; it flips to the other
 * side near the window's edge.
 *
 * @example
 * <Tooltip content="Cancels every command of the batch that is still received or executing">
 *   <button type="button" className="danger">Cancel batch</button>
 * </Tooltip>
 */
export function Tooltip({ content, children, placement = 'top', delayMs = 600 }: TooltipProps) {
  return (
    <TooltipTrigger delay={delayMs} closeDelay={150}>
      <Focusable>{children}</Focusable>
      <AriaTooltip className="tooltip" placement={placement} offset={8} containerPadding={8}>
        {content}
      </AriaTooltip>
    </TooltipTrigger>
  );
}
