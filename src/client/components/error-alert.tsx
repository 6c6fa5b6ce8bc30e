import { useEffect, useRef, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { ApiError } from '../lib/api-error.ts';
import { problemSupportDetail, problemWords } from '../lib/problem-words.ts';

interface ErrorAlertProps {
  error: ApiError;
  /** The sentence that says what failed, e.g. "Could not load the sites." */
  what: ReactNode;
  onRetry?: () => void;
  /** IANA zone of the site the failed call was for: times in the words are on its clock. */
  timeZone?: string | undefined;
  /** Take focus when shown: the alert is the outcome of the operator's last action. */
  focusOnShow?: boolean;
}

/**
 * An error an operator can act on: what failed, why in the product's words (`problemWords`), what
 * to do next; code and vendor message folded away for support.
 */
export function ErrorAlert({
  error,
  what,
  onRetry,
  timeZone,
  focusOnShow = false,
}: ErrorAlertProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusOnShow) ref.current?.focus();
  }, [focusOnShow, error]);
  return (
    <div ref={ref} role="alert" className="notice notice-error" tabIndex={-1}>
      <p>
        <strong>{what}</strong> {problemWords(error, timeZone)}
      </p>
      <details className="support-detail">
        <summary>Details for support</summary>
        <p>{problemSupportDetail(error)}</p>
      </details>
      {error.code === 'site_not_bound' ? (
        <p>
          The site must be bound again: bind it on the <Link to="/sites">Sites</Link> page.
        </p>
      ) : null}
      {onRetry ? (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
