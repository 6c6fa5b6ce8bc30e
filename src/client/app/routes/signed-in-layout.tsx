import { useQueryClient } from '@tanstack/react-query';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { SessionBar } from '../../features/session/components/session-bar.tsx';

/** Frame of every signed-in page: brand, navigation, who is signed in, sign out. */
export function SignedInLayout() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/sites" className="brand">
          powerdeck
        </Link>
        <nav aria-label="Main">
          <NavLink to="/sites">Sites</NavLink>
          <NavLink to="/timeline">Timeline</NavLink>
          <NavLink to="/batches">Batches</NavLink>
        </nav>
        <SessionBar
          onSignedOut={() => {
            queryClient.clear();
            void navigate('/sign-in', { replace: true });
          }}
        />
      </header>
      <main id="main" className="page" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
