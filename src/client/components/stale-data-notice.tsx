import { formatInZone, formatUtc, isKnownTimeZone } from '../lib/time.ts';
import type { ApiError } from '../lib/api-error.ts';
import { readFailureWords } from '../lib/failure-words.ts';

/** What the notice reads of a TanStack Query result (`useQuery`'s return value fits). */
export interface StaleDataQuery {
  /** Anything cached: without data there is nothing stale to show, and a page shows its error. */
  data: unknown;
  /** When the shown data was fetched, epoch ms. */
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
  /**
   * The clock to say "as of" on: the site's zone on a site's page; by default the operator's own
   * (the browser's) zone, for lists that span sites.
   */
  timeZone?: string | undefined;
  /**
   * How often the query tries again by itself after its retries gave up, in ms, when its options
   * say so (`refetchWhileFailing`); the notice then says it.
   */
  autoRetryMs?: number | undefined;
}

/** The zone this browser runs in, for times that belong to no one site. */
const operatorZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * Says when the data on screen could not be refreshed: as soon as the first attempt fails
 * (TanStack Query is still retrying), and after the retries gave up, with how old the shown data
 * is, on the site's or the operator's clock with UTC, why (`readFailureWords`), and a Try again
 * button. Renders nothing while the data is fresh or being refreshed without trouble. A status
 * (polite), not an alert: what is shown stays usable, only older.
 *
 * @example
 * const sites = useSites(); // its options: refetchInterval: refetchWhileFailing()
 * <StaleDataNotice query={sites} what="the site list" autoRetryMs={FAILED_REFETCH_INTERVAL_MS} />
 */
export function StaleDataNotice({ query, what, timeZone, autoRetryMs }: StaleDataNoticeProps) {
  const retrying = query.isFetching && query.failureCount > 0;
  const failed = query.isRefetchError || retrying;
  if (query.data === undefined || !failed || !query.failureReason) return null;
  const zone = timeZone && isKnownTimeZone(timeZone) ? timeZone : operatorZone();
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
