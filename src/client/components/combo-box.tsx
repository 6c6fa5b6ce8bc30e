import { useMemo, type ReactNode } from 'react';
import {
  Button,
  ComboBox as AriaComboBox,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Text,
  useFilter,
  type Key,
} from 'react-aria-components';
import './combo-box.css';
import './popover.css';

/** One choice of a {@link ComboBox}: a device, a site. */
export interface ComboBoxItem {
  id: string;
  /** What the list shows first, what typing matches and what the input shows once it is picked. */
  label: string;
  /** A second line that typing also matches, e.g. the device's name and model. */
  detail?: string;
}

export interface ComboBoxProps {
  label: string;
  items: readonly ComboBoxItem[];
  /** The typed text (controlled), e.g. a filter a table follows as the operator types. */
  inputValue: string;
  onInputChange: (text: string) => void;
  /** The picked item's `id`, or `null`. Picking puts the item's `label` into the input. */
  selectedKey?: string | null;
  onSelectionChange?: (id: string | null) => void;
  description?: ReactNode;
  /** Whether text that matches no item may stay typed (a free filter). Default true. */
  allowsCustomValue?: boolean;
  /** What the open list says when nothing matches. Default "No match". */
  emptyText?: string;
  className?: string;
}

/**
 * A text input with suggestions (React Aria's `ComboBox`), matching label or detail anywhere,
 * ignoring case and accents. The open list hides the page from assistive technology: close it
 * before an accessibility scan (docs/decisions/003-component-kit.md).
 */
export function ComboBox({
  label,
  items,
  inputValue,
  onInputChange,
  selectedKey,
  onSelectionChange,
  description,
  allowsCustomValue = true,
  emptyText = 'No match',
  className,
}: ComboBoxProps) {
  const { contains } = useFilter({ sensitivity: 'base' });
  // With items given React Aria leaves filtering to us: match the detail too, so a name finds a device.
  const shown = useMemo(
    () =>
      items.filter(
        (item) =>
          contains(item.label, inputValue) ||
          (item.detail !== undefined && contains(item.detail, inputValue)),
      ),
    [items, inputValue, contains],
  );
  return (
    <AriaComboBox
      className={className ? `combo-box field ${className}` : 'combo-box field'}
      items={shown}
      inputValue={inputValue}
      onInputChange={onInputChange}
      selectedKey={selectedKey}
      onSelectionChange={(key: Key | null) => {
        const picked = key === null ? undefined : items.find((item) => item.id === String(key));
        if (picked) onInputChange(picked.label);
        onSelectionChange?.(picked ? picked.id : null);
      }}
      allowsCustomValue={allowsCustomValue}
      menuTrigger="input"
      // Say "No match" rather than close the list under the operator's typing.
      allowsEmptyCollection
    >
      <Label>{label}</Label>
      <div className="combo-box-control">
        <Input />
        <Button className="combo-box-button" aria-label={`Show ${label.toLowerCase()} list`}>
          <span aria-hidden="true">▾</span>
        </Button>
      </div>
      {description ? (
        <Text slot="description" className="field-hint">
          {description}
        </Text>
      ) : null}
      <Popover className="popover" placement="bottom start" offset={4}>
        <ListBox
          className="listbox"
          renderEmptyState={() => <div className="listbox-empty">{emptyText}</div>}
        >
          {(item: ComboBoxItem) => (
            <ListBoxItem id={item.id} textValue={item.label} className="listbox-item">
              <Text slot="label">{item.label}</Text>
              {item.detail ? (
                <Text slot="description" className="listbox-item-detail">
                  {item.detail}
                </Text>
              ) : null}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </AriaComboBox>
  );
}
