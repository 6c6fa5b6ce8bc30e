import {
  Autocomplete,
  Collection,
  Dialog,
  Header,
  Input,
  Menu,
  MenuItem,
  MenuSection,
  Modal,
  ModalOverlay,
  SearchField,
  Text,
  useFilter,
} from 'react-aria-components';
import './dialog.css';
import './popover.css';
import './command-palette.css';

export interface PaletteItem {
  id: string;
  label: string;
  /** A second line: an ID, where it lives. */
  detail?: string | undefined;
  /** What typing matches: the label, IDs, the place's name. */
  textValue: string;
  onAction: () => void;
}

export interface PaletteGroup {
  id: string;
  title: string;
  items: PaletteItem[];
}

export interface CommandPaletteProps {
  /** Names the dialog and its search field, e.g. "Search sites and devices". */
  label: string;
  groups: readonly PaletteGroup[];
  onClose: () => void;
  /** Shown when nothing matches, or instead of the list while it loads or failed. */
  emptyText: string;
  placeholder?: string;
}

/**
 * A command palette (React Aria's `Autocomplete` in a modal): typing filters (any part, ignoring
 * case and accents) while arrows move, Enter goes, Escape closes and returns focus.
 */
export function CommandPalette({
  label,
  groups,
  onClose,
  emptyText,
  placeholder,
}: CommandPaletteProps) {
  const { contains } = useFilter({ sensitivity: 'base' });
  const shown = groups.filter((group) => group.items.length > 0);
  return (
    <ModalOverlay
      isOpen
      isDismissable
      onOpenChange={(open) => (open ? undefined : onClose())}
      className="modal-overlay command-palette-overlay"
    >
      <Modal className="modal modal-medium command-palette">
        <Dialog className="dialog" aria-label={label}>
          <Autocomplete filter={contains}>
            <SearchField aria-label={label} autoFocus className="command-palette-search">
              <Input placeholder={placeholder} />
            </SearchField>
            <Menu
              className="menu command-palette-list"
              aria-label={label}
              items={shown}
              renderEmptyState={() => <p className="command-palette-empty">{emptyText}</p>}
            >
              {(group) => (
                <MenuSection id={group.id} className="command-palette-group">
                  <Header className="menu-note">{group.title}</Header>
                  <Collection items={group.items}>
                    {(item) => (
                      <MenuItem
                        id={item.id}
                        textValue={item.textValue}
                        className="menu-item command-palette-item"
                        onAction={() => {
                          onClose();
                          item.onAction();
                        }}
                      >
                        <Text slot="label">{item.label}</Text>
                        {item.detail ? (
                          <Text slot="description" className="secondary">
                            {item.detail}
                          </Text>
                        ) : null}
                      </MenuItem>
                    )}
                  </Collection>
                </MenuSection>
              )}
            </Menu>
          </Autocomplete>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
