import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import '../../testing/render.tsx';
import { ComboBox, type ComboBoxItem } from '../combo-box.tsx';

const DEVICES: ComboBoxItem[] = Array.from({ length: 60 }, (_, i) => {
  const n = String(i + 1).padStart(2, '0');
  return { id: `BAT-EU-100-${n}`, label: `BAT-EU-100-${n}`, detail: `Rack ${n} battery` };
});

function Harness() {
  const [filter, setFilter] = useState('');
  const [picked, setPicked] = useState<string | null>(null);
  return (
    <>
      <ComboBox
        label="Filter devices"
        items={DEVICES}
        inputValue={filter}
        onInputChange={setFilter}
        selectedKey={picked}
        onSelectionChange={setPicked}
        description="ID or name"
      />
      <output>
        {filter}|{picked ?? ''}
      </output>
    </>
  );
}

describe('ComboBox', () => {
  it('narrows a long list as typed, by ID or name, and picks with the keyboard', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const input = screen.getByRole('combobox', { name: 'Filter devices' });
    expect(input.getAttribute('aria-describedby')).toBeTruthy();
    await user.type(input, '-42');
    const list = await screen.findByRole('listbox');
    expect(
      within(list)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['BAT-EU-100-42Rack 42 battery']);
    await user.keyboard('{ArrowDown}{Enter}');
    expect(document.querySelector('output')?.textContent).toBe('BAT-EU-100-42|BAT-EU-100-42');
  });

  it('matches the detail line too and says when nothing matches', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const input = screen.getByRole('combobox', { name: 'Filter devices' });
    await user.type(input, 'k 07');
    expect(
      within(await screen.findByRole('listbox'))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['BAT-EU-100-07Rack 07 battery']);
    await user.clear(input);
    await user.type(input, 'zz');
    expect((await screen.findByRole('listbox')).textContent).toContain('No match');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('listbox')).toBeNull();
  });
});
