import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useLocation } from 'react-router';
import { Loading } from '../../components/loading.tsx';
import { connectionStateQueryOptions } from '../../features/connections/api/connections.ts';
import { NoConnection } from '../../features/connections/components/no-connection.tsx';
import { useSession } from '../../features/session/api/get-session.ts';

/** Pages that need no vendor connection (the BFF's own records, and the connections page). */
const CONNECTION_FREE_PATHS = ['/audit', '/connections'];

/**
 * In company sign-in, the no-connection state instead of pages needing the region's vendor
 * connection while none is registered (docs/security.md, Vendor connections). Unreadable state: the page shows.
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
