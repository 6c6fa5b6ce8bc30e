import { queryOptions, useQuery } from '@tanstack/react-query';
import { SignInModeSchema, type SignInMode } from '#domain/sign-in-mode.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { sessionKeys } from './session-keys.ts';

/** `GET /api/session/mode`: credentials form or company account (docs/security.md). */
export function getSignInMode(signal?: AbortSignal): Promise<SignInMode> {
  return apiRequest('/session/mode', SignInModeSchema, { signal });
}

/** The sign-in mode; it changes only when the server is reconfigured. */
export const signInModeQueryOptions = () =>
  queryOptions({
    queryKey: sessionKeys.mode(),
    queryFn: ({ signal }) => getSignInMode(signal),
    staleTime: Infinity,
  });

export const useSignInMode = () => useQuery(signInModeQueryOptions());
