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
