import { useState } from 'react';
import { Toast } from 'radix-ui';
import { TOAST_TIMEOUT_MS } from '../../../shared/data.js';

// The viewport is an ordered list in a "Notifications (F8)" region; F8 moves focus into it.
export default function ToastPart() {
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Toast</h2>
      <Toast.Provider duration={TOAST_TIMEOUT_MS}>
        <button type="button" onClick={() => setOpen(true)}>
          Cancel command
        </button>
        <Toast.Root className="toast" open={open} onOpenChange={setOpen}>
          <Toast.Title>Command cancelled</Toast.Title>
          <Toast.Action altText="Undo the cancellation" onClick={() => setResult('undone')}>
            Undo
          </Toast.Action>
          <Toast.Close aria-label="Dismiss">×</Toast.Close>
        </Toast.Root>
        <Toast.Viewport className="toasts" />
      </Toast.Provider>
      <output data-testid="toast-result">{result}</output>
    </section>
  );
}
