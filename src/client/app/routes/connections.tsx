import { REGIONS } from '#domain/token.ts';
import { QueryView } from '../../components/query-view.tsx';
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
  return (
    <QueryView
      query={useConnections()}
      loading="Loading the connections…"
      failed="Could not read the connections."
    >
      {({ connections }) => (
        <>
          <p className="lead">
            The partner client ID and secret the vendor issued, per region. Operators act through
            them without ever seeing them.
          </p>
          {REGIONS.map((region) => (
            <ConnectionPanel
              key={region}
              region={region}
              current={connections.find((c) => c.region === region)}
            />
          ))}
        </>
      )}
    </QueryView>
  );
}
