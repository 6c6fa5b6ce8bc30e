import { lazy, type ComponentType } from 'react';

/**
 * `React.lazy` for a chart whose code is a chunk of its own: when the chunk cannot load (the
 * network, a new release's chunk names, or, in Firefox, a page left while it loads, which Firefox
 * fails where Chromium drops it), {@link ChartUnavailable} takes its place and the page stays; a
 * rejected lazy load would throw to the route's error page. React keeps the outcome, so the
 * chart is tried again on the page's next load, as the message says.
 *
 * @param load resolves to the chart component; may reject.
 */
export function lazyChart<P extends object>(
  load: () => Promise<ComponentType<P>>,
): ComponentType<P> {
  return lazy(() =>
    load().then(
      (Chart) => ({ default: Chart }),
      () => ({ default: ChartUnavailable as ComponentType<P> }),
    ),
  );
}

/** In a chart's place when its code could not load; the page's words and tables stay. */
export function ChartUnavailable() {
  return (
    <p role="status" className="hint chart-unavailable">
      The chart could not load. The figures and tables on this page still hold; reload the page to
      try the chart again.
    </p>
  );
}
