import { useState } from 'react';
import { Popover } from 'radix-ui';
import { Command } from 'cmdk';
import { DEVICES } from '../../../shared/data.js';

// Radix has no combobox: the common pattern is a Radix Popover holding a cmdk list
// (the input is role="combobox", the list role="listbox").
export default function ComboBoxPart() {
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState('');
  const chosen = DEVICES.find((d) => d.id === result);
  return (
    <section className="part">
      <h2>Combobox</h2>
      <span id="radix-device-label">Device</span>{' '}
      <Popover.Root open={open} onOpenChange={setOpen}>
        <Popover.Trigger aria-labelledby="radix-device-label radix-device-value">
          <span id="radix-device-value">{chosen ? chosen.name : 'Choose a device'}</span>
        </Popover.Trigger>
        <Popover.Portal>
          <Popover.Content className="popover" sideOffset={4} aria-label="Devices">
            <Command label="Device">
              <Command.Input placeholder="Search devices" aria-label="Search devices" />
              <Command.List>
                <Command.Empty>No device</Command.Empty>
                {DEVICES.map((d) => (
                  <Command.Item
                    key={d.id}
                    value={d.name}
                    onSelect={() => {
                      setResult(d.id);
                      setOpen(false);
                    }}
                  >
                    {d.name}
                  </Command.Item>
                ))}
              </Command.List>
            </Command>
          </Popover.Content>
        </Popover.Portal>
      </Popover.Root>
      <output data-testid="combobox-result">{result}</output>
    </section>
  );
}
