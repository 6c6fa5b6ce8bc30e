import { useEffect, useState } from 'react';
import { TOAST_TIMEOUT_MS } from '../../../shared/data.js';

export default function ToastPart() {
  const [toast, setToast] = useState(false);
  const [result, setResult] = useState('');
  useEffect(() => {
    if (!toast) return undefined;
    const t = setTimeout(() => setToast(false), TOAST_TIMEOUT_MS);
    return () => clearTimeout(t);
  }, [toast]);
  return (
    <section className="part">
      <h2>Toast</h2>
      <button type="button" onClick={() => setToast(true)}>
        Cancel command
      </button>
      <div role="status" aria-live="polite" className={toast ? 'toast' : undefined}>
        {toast && (
          <>
            <span>Command cancelled</span>
            <button
              type="button"
              onClick={() => {
                setResult('undone');
                setToast(false);
              }}
            >
              Undo
            </button>
          </>
        )}
      </div>
      <output data-testid="toast-result">{result}</output>
    </section>
  );
}
