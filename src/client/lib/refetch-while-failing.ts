/** How often a query whose last fetch failed tries again, while its cached data is shown. */
export const FAILED_REFETCH_INTERVAL_MS = 15_000;

/** A `refetchInterval`: every {@link FAILED_REFETCH_INTERVAL_MS} while the last fetch failed, else `otherwise`. */
export function refetchWhileFailing(otherwise: number | false = false) {
  return (query: { state: { status: 'pending' | 'error' | 'success' } }): number | false =>
    query.state.status === 'error' ? FAILED_REFETCH_INTERVAL_MS : otherwise;
}
