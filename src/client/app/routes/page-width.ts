import { useMatches } from 'react-router';

/**
 * How wide a signed-in page is: `readable` (the default) keeps forms and prose to a measure an eye
 * can follow; `wide` gives the whole window to work that needs it (timeline, batch, history).
 * A route opts in with `handle: { pageWidth: 'wide' }` (app/router.tsx).
 */
export type PageWidth = 'readable' | 'wide';

/** The `handle` a route may carry to choose its page width. */
export interface PageWidthHandle {
  pageWidth: PageWidth;
}

const isPageWidthHandle = (handle: unknown): handle is PageWidthHandle =>
  typeof handle === 'object' &&
  handle !== null &&
  'pageWidth' in handle &&
  (handle.pageWidth === 'readable' || handle.pageWidth === 'wide');

/** The width the deepest matched route asks for, else `readable`. */
export function usePageWidth(): PageWidth {
  const matches = useMatches();
  for (const match of [...matches].reverse())
    if (isPageWidthHandle(match.handle)) return match.handle.pageWidth;
  return 'readable';
}
