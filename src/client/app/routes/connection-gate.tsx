import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useLocation } from 'react-router';
import { Loading } from '../../components/loading.tsx';
import { connectionStateQueryOptions } from '../../features/connections/api/connections.ts';
import { NoConnection } from '../../features/connections/components/no-connection.tsx';
import { useSession } from '../../features/session/api/get-session.ts';

/**
 * Pages that need no vendor connection: the Audit (the BFF's own records) and the Connections
 * page itself. Every other signed-in page reads or changes the vendor's data through it.
 */
const CONNECTION_FREE_PATHS = ['/audit', '/connections'];

/**
 * In company sign-in, shows the no-connection empty state instead of `children` on every page
 * that needs the region's vendor connection while none is registered (docs/security.md, Vendor
 * connections). Until the first answer a loading line stands in (the page's own calls would only
 * be refused); the page shows when the state cannot be read, and its own errors then say why.
 */
export function ConnectionGate({ children }: { children: ReactNode }) {
  const session = useSession().data;
  const { pathname } = useLocation();
  const company = session?.operator !== undefined;
  const state = useQuery({
    ...connectionStateQueryOptions(session?.region ?? 'eu'),
    enabled: company,
  });
  const free = CONNECTION_FREE_PATHS.some(
    (path) => pathname === path || pathname.startsWith(`${path}/`),
  );
  if (!session || !company || free) return children;
  if (state.isPending) return <Loading what="Checking the vendor connection…" />;
  if (state.data?.registered !== false) return children;
  return <NoConnection region={session.region} isAdmin={session.role === 'admin'} />;
}
