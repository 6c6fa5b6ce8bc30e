import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { useSession } from '../../features/session/api/get-session.ts';
import { SessionBar } from '../../features/session/components/session-bar.tsx';
import { ConnectionGate } from './connection-gate.tsx';
import { usePageWidth } from './page-width.ts';

// Loaded beside the page, not before it: toasts come only after an action, and pages that use no
// React Aria component (the batch list, the history) then render without waiting for its code.
const ToastRegion = lazy(() =>
  import('../../components/toast.tsx').then(({ ToastRegion }) => ({ default: ToastRegion })),
);

const NAVIGATION = [
  { to: '/sites', label: 'Sites' },
  { to: '/timeline', label: 'Timeline' },
  { to: '/batches', label: 'Batches' },
  { to: '/audit', label: 'Audit' },
  { to: '/fleet-jobs', label: 'Fleet jobs' },
] as const;

/**
 * Frame of every signed-in page: a skip link, the brand, the main navigation (the current page
 * marked with `aria-current`), who is signed in and sign-out; then the page, as wide as its route
 * asks (`usePageWidth`), or in its place the empty state of a region without a vendor connection
 * (`ConnectionGate`); and the one toast region, where `showToast` outcomes appear.
 */
export function SignedInLayout() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const pageWidth = usePageWidth();
  const session = useSession();
  // Administrators of a company sign-in hold the vendor connections.
  const navigation =
    session.data?.role === 'admin'
      ? [...NAVIGATION, { to: '/connections', label: 'Connections' }]
      : NAVIGATION;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/sites" className="brand">
          powerdeck
        </Link>
        <nav aria-label="Main" className="app-nav">
          <ul>
            {navigation.map(({ to, label }) => (
              <li key={to}>
                <NavLink to={to}>{label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <SessionBar
          onSignedOut={(logoutUrl) => {
            queryClient.clear();
            // After a company sign-in the IdP's session ends too; it sends the browser back to
            // the sign-in page.
            if (logoutUrl) window.location.assign(logoutUrl);
            else void navigate('/sign-in', { replace: true });
          }}
        />
      </header>
      <main id="main" className={`app-main page-${pageWidth}`} tabIndex={-1}>
        <ConnectionGate>
          <Outlet />
        </ConnectionGate>
      </main>
      <Suspense fallback={null}>
        <ToastRegion />
      </Suspense>
    </>
  );
}
