import type { ReactNode } from 'react';
import {
  Button,
  Collection,
  Header,
  Menu as AriaMenu,
  MenuItem,
  MenuSection,
  MenuTrigger,
  Popover,
  type Key,
} from 'react-aria-components';
import './popover.css';

export interface MenuAction {
  id: string;
  label: string;
  onAction: () => void;
  isDisabled?: boolean;
  /** `danger` for a destructive choice (shown in the danger colour, still named in words). */
  tone?: 'danger';
}

export interface MenuProps {
  label: ReactNode;
  /** Name of the button when `label` is not text (an icon). */
  'aria-label'?: string;
  actions: readonly MenuAction[];
  /** Where the list opens relative to the button. Default below, aligned to its end. */
  placement?: 'bottom start' | 'bottom end' | 'top start' | 'top end';
  /** A line above the choices that says something of them all, e.g. why some are missing. */
  note?: string | undefined;
  /** Whether the button shows its ▾ caret (default true); an icon button may do without. */
  caret?: boolean;
  buttonClassName?: string;
  /** Open state for a menu also opened another way (right-click, a key), with `onOpenChange`. */
  isOpen?: boolean;
  onOpenChange?: (isOpen: boolean) => void;
}

/**
 * A menu button (React Aria's `MenuTrigger`): keyboard opens it with the first choice focused,
 * focus returns on close. For a few actions that do not fit beside a row.
 */
export function Menu({
  label,
  actions,
  placement = 'bottom end',
  note,
  caret = true,
  buttonClassName = 'menu-button',
  isOpen,
  onOpenChange,
  ...props
}: MenuProps) {
  const onAction = (key: Key) => actions.find((action) => action.id === key)?.onAction();
  const item = (action: MenuAction) => (
    <MenuItem
      id={action.id}
      textValue={action.label}
      className={action.tone === 'danger' ? 'menu-item menu-item-danger' : 'menu-item'}
    >
      {action.label}
    </MenuItem>
  );
  return (
    <MenuTrigger
      {...(isOpen === undefined ? {} : { isOpen })}
      {...(onOpenChange ? { onOpenChange } : {})}
    >
      <Button className={buttonClassName} aria-label={props['aria-label']}>
        {label}
        {caret ? (
          <span aria-hidden="true" className="menu-button-caret">
            ▾
          </span>
        ) : null}
      </Button>
      <Popover className="popover" placement={placement} offset={4}>
        <AriaMenu
          className="menu"
          onAction={onAction}
          disabledKeys={actions.filter((action) => action.isDisabled).map((action) => action.id)}
          {...(isOpen === undefined ? {} : { autoFocus: 'first' as const })}
        >
          {note ? (
            <MenuSection>
              <Header className="menu-note">{note}</Header>
              <Collection items={actions}>{item}</Collection>
            </MenuSection>
          ) : (
            <Collection items={actions}>{item}</Collection>
          )}
        </AriaMenu>
      </Popover>
    </MenuTrigger>
  );
}
