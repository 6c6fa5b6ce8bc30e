import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ConnectionCheckSchema,
  VendorConnectionListSchema,
  type ConnectionCheck,
  type VendorConnectionList,
  type VendorConnectionRequest,
} from '../../../../domain/connections.ts';
import type { Region } from '../../../../domain/token.ts';
import { apiRequest } from '../../../lib/api-client.ts';

/** Query keys of the vendor connections, generic to specific. */
export const connectionKeys = {
  all: ['connections'] as const,
  list: () => [...connectionKeys.all, 'list'] as const,
};

/** `GET /api/connections`: each region's connection, never its secret (admin only). */
export function getConnections(signal?: AbortSignal): Promise<VendorConnectionList> {
  return apiRequest('/connections', VendorConnectionListSchema, { signal });
}

export const connectionsQueryOptions = () =>
  queryOptions({
    queryKey: connectionKeys.list(),
    queryFn: ({ signal }) => getConnections(signal),
  });

export const useConnections = () => useQuery(connectionsQueryOptions());

/** `PUT /api/connections/{region}`: registers or replaces a region's connection. */
export function putConnection(
  region: Region,
  credentials: VendorConnectionRequest,
): Promise<undefined> {
  return apiRequest(`/connections/${region}`, null, { method: 'PUT', body: credentials });
}

export function usePutConnection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      region,
      credentials,
    }: {
      region: Region;
      credentials: VendorConnectionRequest;
    }) => putConnection(region, credentials),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: connectionKeys.all }),
  });
}

/** `POST /api/connections/{region}/check`: requests a token with the region's connection. */
export function checkConnection(region: Region): Promise<ConnectionCheck> {
  return apiRequest(`/connections/${region}/check`, ConnectionCheckSchema, {
    method: 'POST',
    body: {},
  });
}

export const useCheckConnection = () => useMutation({ mutationFn: checkConnection });
