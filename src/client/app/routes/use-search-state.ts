import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';

/** The state shown, the query it writes, and the query the URL had when it was written. */
interface Held<T> {
  state: T;
  query: string;
  from: string;
}

/**
 * A page's view state in the URL: `parse` (never fails), `write` (defaults left out). `change`
 * shows the merged state at once and replaces the history entry; until navigation settles the
 * chosen state stays shown, so inputs never spring back and quick changes both stay. An outside URL change is read again.
 */
export function useSearchState<T>(
  parse: (params: URLSearchParams) => T,
  write: (state: T) => URLSearchParams,
): [T, (next: Partial<T>) => void] {
  const [params, setParams] = useSearchParams();
  const query = params.toString();
  const [held, setHeld] = useState<Held<T>>(() => ({ state: parse(params), query, from: query }));
  let shown = held;
  if (query !== held.query && query !== held.from) {
    // Neither what was written nor what the URL held before it: the URL changed from outside.
    shown = { state: parse(params), query, from: query };
    setHeld(shown);
  }
  const latest = useRef({ state: shown.state, urlQuery: query });
  useLayoutEffect(() => {
    latest.current = { state: shown.state, urlQuery: query };
  }, [shown.state, query]);
  const change = useCallback(
    (next: Partial<T>) => {
      const state = { ...latest.current.state, ...next };
      const written = write(state);
      latest.current = { ...latest.current, state };
      setHeld({ state, query: written.toString(), from: latest.current.urlQuery });
      void setParams(written, { replace: true });
    },
    [write, setParams],
  );
  return [shown.state, change];
}
