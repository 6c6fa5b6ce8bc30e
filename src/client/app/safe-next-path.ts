/** The path to return to after sign-in: only a path of this app (not `//host`), so sign-in cannot redirect elsewhere. */
export function safeNextPath(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\'))
    return '/overview';
  return next;
}

/** `/sign-in?next=<current path>`, or plain `/sign-in` when there is nothing to return to. */
export function signInPathFrom(location: { pathname: string; search: string }): string {
  const here = `${location.pathname}${location.search}`;
  if (location.pathname === '/sign-in' || here === '/' || here === '/overview') return '/sign-in';
  return `/sign-in?${new URLSearchParams({ next: here }).toString()}`;
}

/**
 * What a 401 `not_signed_in` does wherever it comes from (the BFF session ended: signed out
 * elsewhere, expired): forget every cached answer and go to the sign-in page with the way back,
 * unless the operator is on it already (src/client/README.md, rules of the house).
 */
export function sendToSignIn(
  router: {
    state: { location: { pathname: string; search: string } };
    navigate: (to: string, options: { replace: boolean }) => Promise<void>;
  },
  queryClient: { clear: () => void },
): void {
  const { location } = router.state;
  if (location.pathname === '/sign-in') return;
  queryClient.clear();
  void router.navigate(signInPathFrom(location), { replace: true });
}
