import { REGION_NAMES } from '../../../../domain/token.ts';
import { useSession } from '../api/get-session.ts';
import { useSignOut } from '../api/sign-out.ts';

/** Who is signed in (operator when named, client ID, region) and the way out. */
export function SessionBar({ onSignedOut }: { onSignedOut: () => void }) {
  const session = useSession();
  const signOut = useSignOut({ onSettled: onSignedOut });
  return (
    <div className="session-bar">
      {session.data ? (
        <dl className="session-who" aria-label="Signed in">
          {session.data.operatorName ? (
            <div>
              <dt>Operator</dt>
              <dd>
                <strong>{session.data.operatorName}</strong>
              </dd>
            </div>
          ) : null}
          <div>
            <dt>Client ID</dt>
            <dd>
              {session.data.operatorName ? (
                session.data.clientId
              ) : (
                <strong>{session.data.clientId}</strong>
              )}
            </dd>
          </div>
          <div>
            <dt>Region</dt>
            <dd>{REGION_NAMES[session.data.region]}</dd>
          </div>
        </dl>
      ) : null}
      <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        {signOut.isPending ? 'Signing out…' : 'Sign out'}
      </button>
    </div>
  );
}
