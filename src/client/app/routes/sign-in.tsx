import type { QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { redirect, useNavigate, useSearchParams } from 'react-router';
import { OidcRefusalSchema } from '#domain/sign-in-mode.ts';
import { useSignInMode } from '../../features/session/api/get-sign-in-mode.ts';
import { sessionKeys } from '../../features/session/api/session-keys.ts';
import { CompanySignIn } from '../../features/session/components/company-sign-in.tsx';
import { SignInForm } from '../../features/session/components/sign-in-form.tsx';
import { SignInRefusal } from '../../features/session/components/sign-in-refusal.tsx';
import { REFUSAL_WORDS } from '../../features/session/lib/refusal-words.ts';
import {
  forgetSignOutState,
  isOwnSignOutReturn,
} from '../../features/session/lib/sign-out-state.ts';
import { isLeavingSignedInPages } from '../leave-signed-in.ts';
import { safeNextPath } from '../safe-next-path.ts';

/**
 * The sign-in page, also where the IdP returns: `?refused=<why>` shows why and how to sign out of
 * the company account; `?state=` says it is signed out when the state is this tab's own sign-out's.
 */
function SignInRoute() {
  const navigate = useNavigate();
  const [searchParams, setSearchParams] = useSearchParams();
  const next = safeNextPath(searchParams.get('next'));
  const mode = useSignInMode();
  const refused = OidcRefusalSchema.safeParse(searchParams.get('refused'));
  const returnedState = searchParams.get('state');
  // Checked once, before the effect below forgets the kept state and takes it off the address.
  const [signedOutOfCompany] = useState(() => isOwnSignOutReturn(returnedState));
  useEffect(() => {
    if (returnedState === null) return;
    forgetSignOutState();
    setSearchParams(
      (params) => {
        params.delete('state');
        return params;
      },
      { replace: true },
    );
  }, [returnedState, setSearchParams]);

  if (refused.success)
    return (
      <main className="page page-narrow" id="main">
        <title>{`${REFUSAL_WORDS[refused.data].title} · powerdeck`}</title>
        <SignInRefusal
          refusal={refused.data}
          onLeave={(logoutUrl) => window.location.assign(logoutUrl)}
        />
        {mode.data?.mode === 'oidc' ? (
          <section className="stack" aria-labelledby="sign-in-again">
            <h2 id="sign-in-again">Sign in again</h2>
            <CompanySignIn />
          </section>
        ) : null}
      </main>
    );

  return (
    <main className="page page-narrow" id="main">
      <title>Sign in · powerdeck</title>
      <h1>Sign in to powerdeck</h1>
      {signedOutOfCompany ? (
        <p role="status" className="notice notice-success">
          You are signed out of powerdeck and of your company account.
        </p>
      ) : null}
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
    // A session being left is still cached until the pages are forgotten (leave-signed-in.ts).
    if (
      queryClient.getQueryData(sessionKeys.current()) === undefined ||
      isLeavingSignedInPages(queryClient)
    )
      return null;
    return redirect(safeNextPath(new URL(request.url).searchParams.get('next')));
  },
});
