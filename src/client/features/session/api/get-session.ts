import { queryOptions, useQuery } from '@tanstack/react-query';
import { SessionInfoSchema, type SessionInfo } from '#domain/session.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { sessionKeys } from './session-keys.ts';

/** `GET /api/session`: who is signed in; rejects with `not_signed_in` (401) when nobody is. */
export function getSession(signal?: AbortSignal): Promise<SessionInfo> {
  return apiRequest('/session', SessionInfoSchema, { signal });
}

/** The signed-in client, kept until sign-out: a session ending meanwhile shows as a 401 on the next call. */
export const sessionQueryOptions = () =>
  queryOptions({
    queryKey: sessionKeys.current(),
    queryFn: ({ signal }) => getSession(signal),
    staleTime: Infinity,
    retry: false,
    meta: { handlesNotSignedIn: true },
  });

export const useSession = () => useQuery(sessionQueryOptions());
