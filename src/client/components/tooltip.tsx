import type { DOMAttributes, ReactElement, ReactNode } from 'react';
import { Focusable, Tooltip as AriaTooltip, TooltipTrigger } from 'react-aria-components';
import './tooltip.css';

export interface TooltipProps {
  /** What the tooltip says: a short supplement to the trigger's own name, never the only label. */
  content: ReactNode;
  /** One native focusable element accepting a ref (wrapped in React Aria's `Focusable`). */
  children: ReactElement<DOMAttributes<Element>, string>;
  /** Side of the trigger it shows on; flips to the other side when there is no room. Default top. */
  placement?: 'top' | 'bottom' | 'start' | 'end';
  /** Hover delay before it shows, in ms (keyboard focus shows it at once). Default 600. */
  delayMs?: number;
}

/**
 * A tooltip on hover and focus (React Aria), hidden by Escape, 8 px beside its trigger and on one
 * side, so neighbouring actions stay clickable; it flips near the window's edge.
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
