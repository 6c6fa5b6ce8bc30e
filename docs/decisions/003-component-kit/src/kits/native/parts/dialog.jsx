import { useRef, useState } from 'react';

export default function DialogPart() {
  const ref = useRef(null);
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Dialog</h2>
      <button type="button" onClick={() => ref.current.showModal()}>
        New command
      </button>
      <dialog ref={ref} aria-labelledby="native-dialog-title">
        <form
          method="dialog"
          onSubmit={(e) => setResult(`submitted ${new FormData(e.currentTarget).get('power')}`)}
        >
          <h2 id="native-dialog-title">New command</h2>
          <label>
            Power (kW) <input name="power" defaultValue="-2" />
          </label>
          <button type="submit">Submit</button>
          <button type="button" onClick={() => ref.current.close()}>
            Cancel
          </button>
        </form>
      </dialog>
      <output data-testid="dialog-result">{result}</output>
    </section>
  );
}
