import { useEffect, useState } from 'react';
import type { OutcomeChecking } from '../lib/operator-intent.ts';

interface OutcomeCheckingStatusProps {
  checking: OutcomeChecking;
  /** What was submitted, in words: "the command", "the batch". */
  what: string;
  onStop: () => void;
}

/** Seconds left until `atMs`, ticking once a second while shown (display only). */
function useSecondsUntil(atMs: number | undefined): number | undefined {
  const [nowMs, setNowMs] = useState(() => Date.now());
  useEffect(() => {
    if (atMs === undefined) return undefined;
    const timer = setInterval(() => setNowMs(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [atMs]);
  return atMs === undefined ? undefined : Math.max(0, Math.ceil((atMs - nowMs) / 1_000));
}

/** A submission whose outcome is open: a status (nothing refused), when the next check goes, and Stop. */
export function OutcomeCheckingStatus({ checking, what, onStop }: OutcomeCheckingStatusProps) {
  const seconds = useSecondsUntil(checking.state === 'checking' ? checking.nextTryAtMs : undefined);
  if (checking.state === 'idle') return null;
  if (checking.state === 'stopped')
    return (
      <div role="status" className="notice">
        <p>
          <strong>Stopped checking.</strong> Whether {what} was taken is not known yet; the
          device&apos;s commands show it once the vendor answers. Submitting the same values again
          checks first and never sends it twice.
        </p>
      </div>
    );
  return (
    <div role="status" className="notice">
      <p>
        <strong>
          Outcome not known yet:{' '}
          {seconds === undefined || seconds === 0
            ? 'checking now…'
            : `checking again in ${seconds} s.`}
        </strong>{' '}
        No answer has decided {what} yet. powerdeck keeps checking by itself, as the same
        submission, so it is never sent twice; the form keeps its values.
      </p>
      <button type="button" onClick={onStop}>
        Stop checking
      </button>
    </div>
  );
}
