import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { clearToasts, ToastRegion } from '../../components/toast.tsx';
import { SessionBar } from '../../features/session/components/session-bar.tsx';
import { usePageWidth } from './page-width.ts';

const NAVIGATION = [
  { to: '/sites', label: 'Sites' },
  { to: '/timeline', label: 'Timeline' },
  { to: '/batches', label: 'Batches' },
] as const;

/**
 * Frame of every signed-in page: a skip link, the brand, the main navigation (the current page
 * marked with `aria-current`), who is signed in and sign-out; then the page, as wide as its route
 * asks (`usePageWidth`); and the one toast region, where `showToast` outcomes appear.
 */
export function SignedInLayout() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const pageWidth = usePageWidth();
  // Leaving the signed-in pages (sign-out, an expired session) drops their outcomes, so none
  // shows to whoever signs in next.
  useEffect(() => clearToasts, []);
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
            {NAVIGATION.map(({ to, label }) => (
              <li key={to}>
                <NavLink to={to}>{label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <SessionBar
          onSignedOut={() => {
            queryClient.clear();
            void navigate('/sign-in', { replace: true });
          }}
        />
      </header>
      <main id="main" className={`app-main page-${pageWidth}`} tabIndex={-1}>
        <Outlet />
      </main>
      <ToastRegion />
    </>
  );
}
