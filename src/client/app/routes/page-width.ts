import { useMatches } from 'react-router';

/** `readable` (default) keeps forms to a measure; `wide` for the timeline, batch, history. Set by `handle: { pageWidth: 'wide' }`. */
export type PageWidth = 'readable' | 'wide';

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
