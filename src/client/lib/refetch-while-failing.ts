/** How often a query whose last fetch failed tries again, while its cached data is shown. */
export const FAILED_REFETCH_INTERVAL_MS = 15_000;

/**
 * A `refetchInterval` for queries whose data stays on screen when a refresh fails (with
 * `StaleDataNotice`): while the last fetch failed, TanStack Query tries again every
 * {@link FAILED_REFETCH_INTERVAL_MS}; otherwise `otherwise` (no polling by default).
 *
 * @example
 * queryOptions({ queryKey, queryFn, refetchInterval: refetchWhileFailing() })
 */
export function refetchWhileFailing(otherwise: number | false = false) {
  return (query: { state: { status: 'pending' | 'error' | 'success' } }): number | false =>
    query.state.status === 'error' ? FAILED_REFETCH_INTERVAL_MS : otherwise;
}
