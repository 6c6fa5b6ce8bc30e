import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { NotificationBell } from '../../features/notifications/components/notification-bell.tsx';
import { useSession } from '../../features/session/api/get-session.ts';
import { AccountMenu, type AccountLink } from '../../features/session/components/account-menu.tsx';
import { deviceCallBudgetOf } from '#domain/device-budget.ts';
import { DeviceBudgetContext } from '../../lib/device-budget.ts';
import { PushStateContext, usePushStream } from '../../lib/push-stream.ts';
import { forgetLeftSignedInPages, startLeavingSignedInPages } from '../leave-signed-in.ts';
import { createPushApplier } from '../push-updates.ts';
import { signInPathFrom } from '../safe-next-path.ts';
import { ConnectionGate } from './connection-gate.tsx';
import { LiveUpdatesIndicator } from './live-updates-indicator.tsx';
import { usePageWidth } from './page-width.ts';

// Lazy: toasts only follow an action, and pages without React Aria render without waiting for it.
const ToastRegion = lazy(() =>
  import('../../components/toast.tsx').then(({ ToastRegion }) => ({ default: ToastRegion })),
);

const SiteSearch = lazy(() =>
  import('./site-search.tsx').then(({ SiteSearch }) => ({ default: SiteSearch })),
);

const isSearchShortcut = (event: KeyboardEvent) =>
  event.key.toLowerCase() === 'k' && (event.ctrlKey || event.metaKey) && !event.altKey;

const NAVIGATION = [
  { to: '/overview', label: 'Overview' },
  { to: '/sites', label: 'Sites' },
  { to: '/timeline', label: 'Timeline' },
  { to: '/batches', label: 'Batches' },
  { to: '/changes', label: 'Queued changes' },
  { to: '/audit', label: 'Audit' },
  { to: '/fleet-jobs', label: 'Fleet jobs' },
] as const;

/** The account's own pages, in the account menu: for whoever holds the account's credentials. */
const CREDENTIAL_PAGES = [
  { to: '/tokens', label: 'Tokens' },
  { to: '/webhooks', label: 'Webhooks' },
] as const;

/**
 * Frame of every signed-in page: navigation, search (Ctrl/Cmd+K), live-updates indicator, bell,
 * the account menu, the page at its route's width (or `ConnectionGate`'s empty state), and the toast region.
 * It holds the one push stream (docs/architecture.md, Live updates) and provides its state and the
 * region's device budget to the pages.
 */
export function SignedInLayout() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const pageWidth = usePageWidth();
  const session = useSession();
  const pushApplier = useMemo(() => createPushApplier(queryClient), [queryClient]);
  const said = session.data?.deviceCallBudget;
  const deviceBudget = useMemo(
    () => deviceCallBudgetOf({ limit: said?.limit, windowSeconds: said?.windowSeconds }),
    [said?.limit, said?.windowSeconds],
  );
  useEffect(() => () => pushApplier.cancel(), [pushApplier]);
  const here = useRef(location);
  const pageRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    here.current = location;
  });
  // Forget what the pages showed only once unmounted, or their queries refetch and get 401 (leave-signed-in.ts).
  useEffect(() => () => forgetLeftSignedInPages(queryClient), [queryClient]);
  const leave = (to: string) => {
    startLeavingSignedInPages(queryClient);
    return Promise.resolve(navigate(to, { replace: true }));
  };
  const [searching, setSearching] = useState(false);
  useEffect(() => {
    const open = (event: KeyboardEvent) => {
      if (!isSearchShortcut(event)) return;
      // Before the browser's own Ctrl+K (its address bar search).
      event.preventDefault();
      setSearching(true);
    };
    window.addEventListener('keydown', open);
    return () => window.removeEventListener('keydown', open);
  }, []);
  const pushState = usePushStream({
    onMessage: pushApplier.apply,
    onSessionEnded: () => void leave(signInPathFrom(here.current)),
  });
  // Credentials form: the signed-in partner administers the account's tokens and webhooks.
  const role = session.data?.role;
  const accountLinks: readonly AccountLink[] =
    role === 'admin'
      ? [{ to: '/connections', label: 'Connections' }, ...CREDENTIAL_PAGES]
      : role === undefined
        ? CREDENTIAL_PAGES
        : [];
  return (
    <PushStateContext value={pushState}>
      <DeviceBudgetContext value={deviceBudget}>
        {/* While toasts show, this box scrolls the page and ends above their strip (toast.tsx). */}
        <div className="app-page" ref={pageRef}>
          <a className="skip-link" href="#main">
            Skip to content
          </a>
          <header className="app-header">
            <Link to="/overview" className="brand">
              powerdeck
            </Link>
            <nav aria-label="Main" className="app-nav">
              <ul>
                {NAVIGATION.map(({ to, label }) => (
                  <li key={to}>
                    <NavLink to={to}>{label}</NavLink>
                  </li>
                ))}
              </ul>
            </nav>
            <button
              type="button"
              className="header-search"
              aria-keyshortcuts="Control+K Meta+K"
              onClick={() => setSearching(true)}
            >
              Search <kbd>Ctrl K</kbd>
            </button>
            <div className="header-live">
              <LiveUpdatesIndicator state={pushState} />
              <NotificationBell />
            </div>
            <AccountMenu
              links={accountLinks}
              onSignedOut={(logoutUrl) =>
                // After a company sign-in the IdP's session ends too, and it returns to sign-in.
                void leave('/sign-in').then(() => {
                  if (logoutUrl) window.location.assign(logoutUrl);
                })
              }
            />
          </header>
          <main id="main" className={`app-main page-${pageWidth}`} tabIndex={-1}>
            <ConnectionGate>
              <Outlet />
            </ConnectionGate>
          </main>
        </div>
        <Suspense fallback={null}>
          <ToastRegion pageRef={pageRef} />
        </Suspense>
        {searching ? (
          <Suspense fallback={null}>
            <SiteSearch onClose={() => setSearching(false)} />
          </Suspense>
        ) : null}
      </DeviceBudgetContext>
    </PushStateContext>
  );
}
