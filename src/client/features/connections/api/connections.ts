import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ConnectionCheckSchema,
  VendorConnectionListSchema,
  VendorConnectionSavedSchema,
  VendorConnectionStateSchema,
  type ConnectionCheck,
  type VendorConnectionRequest,
  type VendorConnectionSaved,
  type VendorConnectionState,
} from '#domain/connections.ts';
import type { Region } from '#domain/token.ts';
import { apiRequest } from '#client/lib/api-client.ts';

/** Query keys of the vendor connections, generic to specific. */
export const connectionKeys = {
  all: ['connections'] as const,
  list: () => [...connectionKeys.all, 'list'] as const,
  state: (region: Region) => [...connectionKeys.all, 'state', region] as const,
};

/** `GET /api/connections`: each region's connection, never its secret (admin only). */
export const connectionsQueryOptions = () =>
  queryOptions({
    queryKey: connectionKeys.list(),
    queryFn: ({ signal }) => apiRequest('/connections', VendorConnectionListSchema, { signal }),
  });

export const useConnections = () => useQuery(connectionsQueryOptions());

/** How often a page waiting for a region's first connection asks again, ms. */
export const CONNECTION_WAIT_INTERVAL_MS = 15_000;

/** `GET /api/connections/{region}`: whether operators can work in the region; polled while none, so a waiting page carries on. */
export function getConnectionState(
  region: Region,
  signal?: AbortSignal,
): Promise<VendorConnectionState> {
  return apiRequest(`/connections/${region}`, VendorConnectionStateSchema, { signal });
}

export const connectionStateQueryOptions = (region: Region) =>
  queryOptions({
    queryKey: connectionKeys.state(region),
    queryFn: ({ signal }) => getConnectionState(region, signal),
    refetchInterval: (query) =>
      query.state.data?.registered === false ? CONNECTION_WAIT_INTERVAL_MS : false,
  });

/**
 * `PUT /api/connections/{region}`: registers or replaces the connection once a token request
 * proved it (or `saveUnchecked`). Rejects with 422 `connection_refused` or 503 `connection_unchecked`.
 */
export function putConnection(
  region: Region,
  credentials: VendorConnectionRequest,
): Promise<VendorConnectionSaved> {
  return apiRequest(`/connections/${region}`, VendorConnectionSavedSchema, {
    method: 'PUT',
    body: credentials,
  });
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
    // The mutation holds the secret in its variables: dropped as soon as nobody watches it.
    gcTime: 0,
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
