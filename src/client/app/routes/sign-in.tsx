import type { QueryClient } from '@tanstack/react-query';
import { redirect, useNavigate, useSearchParams } from 'react-router';
import { useSignInMode } from '../../features/session/api/get-sign-in-mode.ts';
import { sessionKeys } from '../../features/session/api/session-keys.ts';
import { CompanySignIn } from '../../features/session/components/company-sign-in.tsx';
import { SignInForm } from '../../features/session/components/sign-in-form.tsx';
import { safeNextPath } from '../safe-next-path.ts';

function SignInRoute() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const next = safeNextPath(searchParams.get('next'));
  const mode = useSignInMode();
  return (
    <main className="page page-narrow" id="main">
      <title>Sign in · powerdeck</title>
      <h1>Sign in to powerdeck</h1>
      {mode.isPending ? (
        <p aria-live="polite">Loading the sign-in…</p>
      ) : mode.data?.mode === 'oidc' ? (
        <>
          <p className="lead">
            Sign in as yourself with your company account. The vendor connection is held by your
            administrator; what you may do depends on your role.
          </p>
          <CompanySignIn />
        </>
      ) : (
        <>
          <p className="lead">
            Use the client ID and secret your service operator issued for your region. They go to
            the powerdeck server only; this browser never stores them.
          </p>
          <SignInForm onSignedIn={() => void navigate(next, { replace: true })} />
        </>
      )}
    </main>
  );
}

/** `/sign-in`: where unauthenticated operators land; someone already signed in goes on. */
export const signInRoute = (queryClient: QueryClient) => ({
  Component: SignInRoute,
  loader: ({ request }: { request: Request }) => {
    if (queryClient.getQueryData(sessionKeys.current()) === undefined) return null;
    return redirect(safeNextPath(new URL(request.url).searchParams.get('next')));
  },
});
