import { REGIONS } from '#domain/token.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { useConnections } from '../../features/connections/api/connections.ts';
import { ConnectionPanel } from '../../features/connections/components/connection-panel.tsx';
import { useSession } from '../../features/session/api/get-session.ts';

/** `/connections`: the administrator's vendor connections, one per region (company sign-in). */
export function ConnectionsRoute() {
  const session = useSession();
  const isAdmin = session.data?.role === 'admin';
  return (
    <>
      <title>Connections · powerdeck</title>
      <h1>Vendor connections</h1>
      {isAdmin ? (
        <ConnectionList />
      ) : (
        <p className="notice">
          Only an administrator manages the vendor connections. Ask yours if a region cannot be
          reached.
        </p>
      )}
    </>
  );
}

function ConnectionList() {
  const connections = useConnections();
  if (connections.isPending) return <Loading what="Loading the connections…" />;
  if (connections.isError)
    return (
      <ErrorAlert
        error={connections.error}
        what="Could not read the connections."
        onRetry={() => void connections.refetch()}
      />
    );
  return (
    <>
      <p className="lead">
        The partner client ID and secret the vendor issued, per region. Operators act through them
        without ever seeing them.
      </p>
      {REGIONS.map((region) => (
        <ConnectionPanel
          key={region}
          region={region}
          current={connections.data.connections.find((c) => c.region === region)}
        />
      ))}
    </>
  );
}
