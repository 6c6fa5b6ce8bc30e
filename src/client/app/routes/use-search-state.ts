import { useCallback, useLayoutEffect, useMemo, useRef } from 'react';
import { useSearchParams } from 'react-router';

/**
 * A page's view state kept in the URL's search params: `parse` reads it (every field with its
 * default, never failing), `write` gives the params (defaults left out). `change` merges a part
 * into the latest state, also one written a moment ago whose navigation has not rendered yet
 * (react-router's own functional `setSearchParams` starts from the last render's params, so two
 * quick changes would keep only the second), and replaces the history entry: Back leaves the
 * page instead of stepping through its filters.
 */
export function useSearchState<T>(
  parse: (params: URLSearchParams) => T,
  write: (state: T) => URLSearchParams,
): [T, (next: Partial<T>) => void] {
  const [params, setParams] = useSearchParams();
  const state = useMemo(() => parse(params), [parse, params]);
  const latest = useRef(params);
  useLayoutEffect(() => {
    latest.current = params;
  }, [params]);
  const change = useCallback(
    (next: Partial<T>) => {
      const written = write({ ...parse(latest.current), ...next });
      latest.current = written;
      void setParams(written, { replace: true });
    },
    [parse, write, setParams],
  );
  return [state, change];
}
