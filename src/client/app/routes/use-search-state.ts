import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';

/** The state shown, the query it writes, and the query the URL had when it was written. */
interface Held<T> {
  state: T;
  query: string;
  from: string;
}

/**
 * A page's view state kept in the URL's search params: `parse` reads it (every field with its
 * default, never failing), `write` gives the params (defaults left out). `change` merges a part
 * into the latest state and shows it at once, then writes the URL, replacing the history entry
 * (Back leaves the page instead of stepping through its filters). The URL's navigation settles
 * a moment later (the signed-in pages' loader runs again): until then the page keeps showing what
 * was chosen, so a checkbox or a typed filter never springs back, and two quick changes both stay
 * (react-router's own functional `setSearchParams` starts from the last render's params). A URL
 * changed from outside (a link followed while on the page) is read again.
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
