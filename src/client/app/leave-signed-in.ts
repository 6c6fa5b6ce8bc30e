import type { QueryClient } from '@tanstack/react-query';

/** The query clients whose app is leaving its signed-in pages, until their cache is cleared. */
const leaving = new WeakSet<QueryClient>();

/**
 * Leaving the signed-in pages (sign-out, a session ended elsewhere) happens in two steps: the app
 * navigates to the sign-in page first, and forgets everything it holds ({@link
 * forgetLeftSignedInPages}) only once those pages are off screen. Cleared while they are still
 * mounted, their queries (the session, the inbox, the page's data) would be fetched again at their
 * next render and refused 401. Meanwhile {@link isLeavingSignedInPages} tells the sign-in page's
 * loader that the session still cached is being left, so it shows the sign-in page instead of
 * sending the operator back.
 */
export function startLeavingSignedInPages(queryClient: QueryClient): void {
  leaving.add(queryClient);
}

/** Whether the app of `queryClient` is leaving its signed-in pages. */
export const isLeavingSignedInPages = (queryClient: QueryClient): boolean =>
  leaving.has(queryClient);

/**
 * Clears the cache of an app that is leaving its signed-in pages, once they are unmounted; does
 * nothing otherwise (the pages unmount for a page outside them too, such as an unknown address).
 */
export function forgetLeftSignedInPages(queryClient: QueryClient): void {
  if (!leaving.delete(queryClient)) return;
  queryClient.clear();
}
