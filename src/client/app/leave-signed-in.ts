import type { QueryClient } from '@tanstack/react-query';

const leaving = new WeakSet<QueryClient>();

/**
 * Leaving the signed-in pages goes in two steps: navigate to sign-in, and forget the cache
 * ({@link forgetLeftSignedInPages}) only once the pages are unmounted, or their queries refetch and get 401.
 * Meanwhile {@link isLeavingSignedInPages} keeps the sign-in loader from sending the operator back.
 */
export function startLeavingSignedInPages(queryClient: QueryClient): void {
  leaving.add(queryClient);
}

export const isLeavingSignedInPages = (queryClient: QueryClient): boolean =>
  leaving.has(queryClient);

/** Clears the cache of an app leaving its signed-in pages, once unmounted; else nothing (an unknown address unmounts them too). */
export function forgetLeftSignedInPages(queryClient: QueryClient): void {
  if (!leaving.delete(queryClient)) return;
  queryClient.clear();
}
