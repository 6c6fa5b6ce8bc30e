// The entry stands for the sign-in route: React and a native form only. The kit's page is a lazy
// chunk, as a signed-in route is in the app, so the build shows what the sign-in route loads (the
// entry) and what a signed-in page adds (the lazy chunk).
import { StrictMode, Suspense, lazy } from 'react';
import { createRoot } from 'react-dom/client';
import './shared/base.css';

const KitPage = lazy(() => import('virtual:kit-page'));

function SignIn() {
  return (
    <main className="sign-in">
      <h1>Sign in</h1>
      <form action="?app" method="get">
        <input type="hidden" name="app" value="" />
        <label>
          Operator <input name="user" autoComplete="username" />
        </label>
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

const signedIn = new URLSearchParams(location.search).has('app');
const root = document.getElementById('root');
if (!root) throw new Error('no #root');

createRoot(root).render(
  <StrictMode>
    {signedIn ? (
      <Suspense fallback={<p>Loading</p>}>
        <KitPage />
      </Suspense>
    ) : (
      <SignIn />
    )}
  </StrictMode>,
);
