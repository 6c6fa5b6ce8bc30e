import { useEffect, useRef, useState } from 'react';
import type { OidcRefusal } from '#domain/session.ts';
import { useSignOut } from '../api/sign-out.ts';
import { REFUSAL_WORDS } from '../lib/refusal-words.ts';

/**
 * A refused company sign-in (docs/security.md, Company sign-in), with "Sign out of your company
 * account": without ending the IdP's session, signing in again meets the same refusal.
 *
 * @param onLeave where the browser goes for the IdP's logout (`window.location.assign`).
 */
export function SignInRefusal({
  refusal,
  onLeave,
}: {
  refusal: OidcRefusal;
  onLeave: (logoutUrl: string) => void;
}) {
  const words = REFUSAL_WORDS[refusal];
  const [noIdpSignOut, setNoIdpSignOut] = useState(false);
  const signOut = useSignOut({
    onSettled: (logoutUrl) => {
      if (logoutUrl) onLeave(logoutUrl);
      else setNoIdpSignOut(true);
    },
  });
  const alertRef = useRef<HTMLDivElement>(null);
  useEffect(() => alertRef.current?.focus(), [refusal]);
  return (
    <section className="stack" aria-labelledby="sign-in-refusal-title">
      <h1 id="sign-in-refusal-title">{words.title}</h1>
      <div role="alert" className="notice notice-error" tabIndex={-1} ref={alertRef}>
        <p>
          {words.what} <strong>Nobody was signed in to powerdeck.</strong>
        </p>
        <p>{words.next}</p>
      </div>
      {words.signOut === 'none' ? null : (
        <p className="actions">
          <button
            type="button"
            className={words.signOut === 'primary' ? 'primary' : undefined}
            onClick={() => {
              setNoIdpSignOut(false);
              signOut.mutate();
            }}
            disabled={signOut.isPending}
          >
            {signOut.isPending ? 'Signing out…' : 'Sign out of your company account'}
          </button>
        </p>
      )}
      {noIdpSignOut ? (
        <p role="status" className="notice notice-warning">
          Your company sign-in offers powerdeck no way to sign you out of it just now. Close the
          browser to end its session, or sign out on your company’s own sign-in page.
        </p>
      ) : null}
    </section>
  );
}
