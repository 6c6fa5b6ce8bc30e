import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ApiTokenListSchema,
  ApiTokenMadeSchema,
  ApiTokenSchema,
  type ApiToken,
  type ApiTokenMade,
  type ApiTokenRequest,
} from '#domain/api-tokens.ts';
import { apiRequest } from '#client/lib/api-client.ts';

/** Query keys of the account's API tokens. */
export const apiTokenKeys = { all: ['api-tokens'] as const };

/** `GET /api/tokens`: the account's tokens, revoked ones too; never a secret (administrators). */
export const apiTokensQueryOptions = () =>
  queryOptions({
    queryKey: apiTokenKeys.all,
    queryFn: ({ signal }) => apiRequest('/tokens', ApiTokenListSchema, { signal }),
  });

export const useApiTokens = () => useQuery(apiTokensQueryOptions());

/** `POST /api/tokens`: makes a token; its secret is in this answer only (docs/automation.md). */
export function makeApiToken(request: ApiTokenRequest): Promise<ApiTokenMade> {
  return apiRequest('/tokens', ApiTokenMadeSchema, { method: 'POST', body: request });
}

export function useMakeApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: makeApiToken,
    // The answer holds the secret: dropped as soon as the page no longer shows it.
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiTokenKeys.all }),
  });
}

/** `DELETE /api/tokens/{tokenId}`: refused from now on. */
export function revokeApiToken(tokenId: string): Promise<ApiToken> {
  return apiRequest(`/tokens/${tokenId}`, ApiTokenSchema, { method: 'DELETE' });
}

export function useRevokeApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeApiToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiTokenKeys.all }),
  });
}
