import { useState } from 'react';
import {
  Button,
  ComboBox,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
} from 'react-aria-components';
import { DEVICES } from '../../../shared/data.js';

export default function ComboBoxPart() {
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Combobox</h2>
      <ComboBox defaultItems={DEVICES} onChange={(key) => setResult(key ? String(key) : '')}>
        <Label>Device</Label>
        <div>
          <Input />
          <Button aria-label="Show devices">▾</Button>
        </div>
        <Popover>
          <ListBox>{(d) => <ListBoxItem id={d.id}>{d.name}</ListBoxItem>}</ListBox>
        </Popover>
      </ComboBox>
      <output data-testid="combobox-result">{result}</output>
    </section>
  );
}
