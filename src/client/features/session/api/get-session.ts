import { queryOptions, useQuery } from '@tanstack/react-query';
import { SessionInfoSchema } from '#domain/session.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { sessionKeys } from './session-keys.ts';

/**
 * The signed-in client, kept until sign-out: a session ending meanwhile shows as a 401 on the next
 * call. Read with `GET /api/session`, which rejects with `not_signed_in` (401) when nobody is.
 */
export const sessionQueryOptions = () =>
  queryOptions({
    queryKey: sessionKeys.current(),
    queryFn: ({ signal }) => apiRequest('/session', SessionInfoSchema, { signal }),
    staleTime: Infinity,
    retry: false,
    meta: { handlesNotSignedIn: true },
  });

export const useSession = () => useQuery(sessionQueryOptions());
