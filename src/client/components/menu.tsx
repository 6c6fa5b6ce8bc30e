import type { ReactNode } from 'react';
import {
  Button,
  Menu as AriaMenu,
  MenuItem,
  MenuTrigger,
  Popover,
  type Key,
} from 'react-aria-components';
import './popover.css';

/** One choice of a {@link Menu}. */
export interface MenuAction {
  /** Unique within the menu. */
  id: string;
  label: string;
  onAction: () => void;
  isDisabled?: boolean;
  /** `danger` for a destructive choice (shown in the danger colour, still named in words). */
  tone?: 'danger';
}

export interface MenuProps {
  /** The button that opens the menu, e.g. "More actions". */
  label: ReactNode;
  /** Name of the button when `label` is not text (an icon). */
  'aria-label'?: string;
  actions: readonly MenuAction[];
  /** Where the list opens relative to the button. Default below, aligned to its end. */
  placement?: 'bottom start' | 'bottom end' | 'top start' | 'top end';
}

/**
 * A menu button (React Aria's `MenuTrigger` > `Menu`): Enter, Space or ArrowDown opens it with the
 * first choice focused, arrows move, Enter picks, Escape closes; focus returns to the button.
 * For a few actions that do not fit beside a row; plain buttons stay plain when there is room.
 *
 * @example
 * <Menu label="Site actions" actions={[
 *   { id: 'fold-all', label: 'Fold every site', onAction: foldAll },
 *   { id: 'unbind', label: 'Unbind…', tone: 'danger', onAction: askUnbind },
 * ]} />
 */
export function Menu({ label, actions, placement = 'bottom end', ...props }: MenuProps) {
  const onAction = (key: Key) => actions.find((action) => action.id === key)?.onAction();
  return (
    <MenuTrigger>
      <Button className="menu-button" aria-label={props['aria-label']}>
        {label}
        <span aria-hidden="true" className="menu-button-caret">
          ▾
        </span>
      </Button>
      <Popover className="popover" placement={placement} offset={4}>
        <AriaMenu
          className="menu"
          items={actions}
          onAction={onAction}
          disabledKeys={actions.filter((action) => action.isDisabled).map((action) => action.id)}
        >
          {(action) => (
            <MenuItem
              id={action.id}
              textValue={action.label}
              className={action.tone === 'danger' ? 'menu-item menu-item-danger' : 'menu-item'}
            >
              {action.label}
            </MenuItem>
          )}
        </AriaMenu>
      </Popover>
    </MenuTrigger>
  );
}
