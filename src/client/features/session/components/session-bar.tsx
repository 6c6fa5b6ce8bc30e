import { ROLE_NAMES } from '#domain/roles.ts';
import { REGION_NAMES } from '#domain/token.ts';
import { useSession } from '../api/get-session.ts';
import { useSignOut } from '../api/sign-out.ts';

/** Who is signed in, the region and sign-out; `onSignedOut` gets the IdP's logout URL when its session should end too. */
export function SessionBar({ onSignedOut }: { onSignedOut: (logoutUrl?: string) => void }) {
  const session = useSession();
  const signOut = useSignOut({ onSettled: onSignedOut });
  const data = session.data;
  return (
    <div className="session-bar">
      {data ? (
        <dl className="session-who" aria-label="Signed in">
          {data.operator ? (
            <>
              <div>
                <dt>Operator</dt>
                <dd>
                  <strong title={data.operator.email}>
                    {data.operator.name ?? data.operator.email ?? data.operator.subject}
                  </strong>
                </dd>
              </div>
              {data.role ? (
                <div>
                  <dt>Role</dt>
                  <dd>{ROLE_NAMES[data.role]}</dd>
                </div>
              ) : null}
            </>
          ) : (
            <>
              {data.operatorName ? (
                <div>
                  <dt>Operator</dt>
                  <dd>
                    <strong>{data.operatorName}</strong>
                  </dd>
                </div>
              ) : null}
              <div>
                <dt>Client ID</dt>
                <dd>{data.operatorName ? data.clientId : <strong>{data.clientId}</strong>}</dd>
              </div>
            </>
          )}
          <div>
            <dt>Region</dt>
            <dd>{REGION_NAMES[data.region]}</dd>
          </div>
        </dl>
      ) : null}
      <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        {signOut.isPending ? 'Signing out…' : 'Sign out'}
      </button>
    </div>
  );
}
