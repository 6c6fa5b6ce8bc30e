import { useState } from 'react';
import { DEVICES } from '../../../shared/data.js';

// <input list> + <datalist>: the browser's own suggestion list.
export default function ComboBoxPart() {
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Combobox</h2>
      <label>
        Device{' '}
        <input
          list="native-devices"
          onChange={(e) => {
            const d = DEVICES.find((x) => x.name === e.target.value);
            setResult(d ? d.id : '');
          }}
        />
      </label>
      <datalist id="native-devices">
        {DEVICES.map((d) => (
          <option key={d.id} value={d.name} />
        ))}
      </datalist>
      <output data-testid="combobox-result">{result}</output>
    </section>
  );
}
