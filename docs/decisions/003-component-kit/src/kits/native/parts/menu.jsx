import { useState } from 'react';

// No native menu button: a popover with plain buttons (no arrow keys, no menu role).
export default function MenuPart() {
  const [result, setResult] = useState('');
  const pick = (v) => {
    setResult(v);
    document.getElementById('native-menu')?.hidePopover();
  };
  return (
    <section className="part">
      <h2>Menu</h2>
      <button type="button" popoverTarget="native-menu">
        Actions
      </button>
      <div id="native-menu" popover="auto" className="menu">
        <button type="button" onClick={() => pick('duplicate')}>
          Duplicate
        </button>
        <button type="button" onClick={() => pick('export')}>
          Export CSV
        </button>
        <button type="button" onClick={() => pick('delete')}>
          Delete
        </button>
      </div>
      <output data-testid="menu-result">{result}</output>
    </section>
  );
}
