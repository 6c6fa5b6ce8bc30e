import { REGION_NAMES } from '../../../../domain/token.ts';
import { useSession } from '../api/get-session.ts';
import { useSignOut } from '../api/sign-out.ts';

/** Who is signed in (client ID, region, operator) and the way out. */
export function SessionBar({ onSignedOut }: { onSignedOut: () => void }) {
  const session = useSession();
  const signOut = useSignOut({ onSettled: onSignedOut });
  return (
    <div className="session-bar">
      {session.data ? (
        <p className="session-who">
          <span className="visually-hidden">Signed in as </span>
          <strong>{session.data.clientId}</strong>
          <span aria-hidden="true"> · </span>
          <span className="visually-hidden">, region </span>
          {REGION_NAMES[session.data.region]}
          {session.data.operatorName ? (
            <>
              <span aria-hidden="true"> · </span>
              <span className="visually-hidden">, operator </span>
              {session.data.operatorName}
            </>
          ) : null}
        </p>
      ) : null}
      <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        {signOut.isPending ? 'Signing out…' : 'Sign out'}
      </button>
    </div>
  );
}
