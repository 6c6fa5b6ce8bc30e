import type { FocusEvent, PointerEvent, RefObject } from 'react';
import { Menu, type MenuAction } from '#client/components/menu.tsx';
import type { Bar } from '../lib/bars.ts';
import type { GhostWindow } from '../lib/ghosts.ts';
import type { RowTarget } from '../lib/timeline-types.ts';

/** The window a bar menu acts on, with its row: a command's bar, or a queued change's window. */
export type BarMenuSubject = RowTarget & { rowIndex: number } & (
    { bar: Bar; ghost?: undefined } | { ghost: GhostWindow; bar?: undefined }
  );

export function menuWindow(subject: BarMenuSubject): { id: string; endMs: number } {
  return subject.bar ?? subject.ghost;
}

/** Width and height of the menu button in CSS pixels (timeline.css, `.timeline-bar-menu`). */
export const BAR_MENU_BUTTON_PX = 24;

/** The "⋯" button of the hovered or focused bar and its {@link Menu}; `isOpen` for right-click and Shift+F10. */
export function BarMenu({
  wrapRef,
  ...props
}: {
  subject: BarMenuSubject;
  leftPx: number;
  topPx: number;
  actions: readonly MenuAction[];
  note: string | undefined;
  isOpen: boolean;
  onOpenChange: (isOpen: boolean) => void;
  wrapRef: RefObject<HTMLDivElement | null>;
  onPointerLeave: (event: PointerEvent<HTMLDivElement>) => void;
  onFocusChange: (focused: boolean) => void;
}) {
  const { subject } = props;
  return (
    <div
      ref={wrapRef}
      className="timeline-bar-menu"
      style={{ left: props.leftPx, top: props.topPx }}
      onPointerLeave={props.onPointerLeave}
      onFocus={() => props.onFocusChange(true)}
      onBlur={(event: FocusEvent<HTMLDivElement>) => {
        if (!event.currentTarget.contains(event.relatedTarget)) props.onFocusChange(false);
      }}
    >
      <Menu
        label="⋯"
        aria-label={
          subject.bar
            ? `Actions for command ${subject.bar.id} on ${subject.device.name}`
            : `Actions for the queued change on ${subject.device.name} (${subject.ghost.name})`
        }
        caret={false}
        buttonClassName="timeline-bar-menu-button"
        placement="bottom start"
        actions={props.actions}
        note={props.note}
        isOpen={props.isOpen}
        onOpenChange={props.onOpenChange}
      />
    </div>
  );
}
