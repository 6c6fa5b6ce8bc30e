import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { ApiError } from '../lib/api-error.ts';

interface ErrorAlertProps {
  error: ApiError;
  /** The sentence that says what failed, e.g. "Could not load the sites." */
  what: ReactNode;
  onRetry?: () => void;
}

/**
 * An error an operator can act on: what failed, the BFF's (often the upstream's) words, and what
 * to do next. A 403 `site_not_bound` (the site was unbound meanwhile) says the site must be bound
 * again, and where.
 */
export function ErrorAlert({ error, what, onRetry }: ErrorAlertProps) {
  return (
    <div role="alert" className="notice notice-error">
      <p>
        <strong>{what}</strong> {error.detail}
      </p>
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
