import { formatInZone, formatUtc, isKnownTimeZone, operatorTimeZone } from '../lib/time.ts';
import type { ApiError } from '../lib/api-error.ts';
import { readFailureWords } from '../lib/failure-words.ts';

/** What the notice reads of a TanStack Query result (`useQuery`'s return value fits). */
export interface StaleDataQuery {
  /** Anything cached: without data there is nothing stale to show, and a page shows its error. */
  data: unknown;
  dataUpdatedAt: number;
  /** True once a refetch over cached data failed after its retries. */
  isRefetchError: boolean;
  isFetching: boolean;
  /** Failed attempts of the fetch under way (1 once the first attempt failed and a retry waits). */
  failureCount: number;
  failureReason: ApiError | null;
  refetch: () => unknown;
}

export interface StaleDataNoticeProps {
  query: StaleDataQuery;
  /** What is shown, as the notice names it: "the site list", "this device's commands". */
  what: string;
  /** The clock of "as of": the site's on a site's page, else the browser's. */
  timeZone?: string | undefined;
  /** The query's own retry interval after its retries gave up (`refetchWhileFailing`), ms, said in the notice. */
  autoRetryMs?: number | undefined;
}

/**
 * Says when the data on screen could not be refreshed: from the first failed attempt, then with
 * its age, why (`readFailureWords`) and Try again. A polite status, not an alert: what is shown
 * stays usable. Nothing while fresh.
 */
export function StaleDataNotice({ query, what, timeZone, autoRetryMs }: StaleDataNoticeProps) {
  const retrying = query.isFetching && query.failureCount > 0;
  const failed = query.isRefetchError || retrying;
  if (query.data === undefined || !failed || !query.failureReason) return null;
  const zone = timeZone && isKnownTimeZone(timeZone) ? timeZone : operatorTimeZone();
  const asOf =
    zone === 'UTC'
      ? formatUtc(query.dataUpdatedAt)
      : `${formatInZone(query.dataUpdatedAt, zone)} (${zone}; ${formatUtc(query.dataUpdatedAt)})`;
  return (
    <div role="status" className="notice notice-warning stale-data-notice">
      <p>
        <strong>Could not refresh {what}:</strong> {readFailureWords(query.failureReason)}.
      </p>
      <p>
        Showing {what} as of {asOf}.{' '}
        {retrying
          ? 'Trying again…'
          : autoRetryMs
            ? `powerdeck tries again every ${Math.round(autoRetryMs / 1000)} seconds.`
            : null}
      </p>
      {retrying ? null : (
        <button type="button" className="small" onClick={() => void query.refetch()}>
          Try again now
        </button>
      )}
    </div>
  );
}
