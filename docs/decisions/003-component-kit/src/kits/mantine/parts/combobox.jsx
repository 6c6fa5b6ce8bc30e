import { useState } from 'react';
import { Select } from '@mantine/core';
import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/Input.css';
import '@mantine/core/styles/Popover.css';
import '@mantine/core/styles/ScrollArea.css';
import { DEVICES } from '../../../shared/data.js';

const DATA = DEVICES.map((d) => ({ value: d.id, label: d.name }));

export default function ComboBoxPart() {
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Combobox</h2>
      <Select
        label="Device"
        searchable
        data={DATA}
        maxDropdownHeight={256}
        onChange={(v) => setResult(v ?? '')}
      />
      <output data-testid="combobox-result">{result}</output>
    </section>
  );
}
