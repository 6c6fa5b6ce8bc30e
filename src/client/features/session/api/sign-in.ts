import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SignInRequest } from '../../../../domain/session.ts';
import { SessionInfoSchema, type SessionInfo } from '../../../../domain/session.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { sessionKeys } from './session-keys.ts';

/**
 * `POST /api/session`: the BFF performs the client-credentials grant and sets the session
 * cookie (docs/architecture.md, BFF surface). Rejects with `invalid_credentials` (401) for a
 * wrong client ID or secret.
 */
export function signIn(request: SignInRequest): Promise<SessionInfo> {
  return apiRequest('/session', SessionInfoSchema, { method: 'POST', body: request });
}

/**
 * Signs in. The mutation is dropped from the cache as soon as nobody watches it (`gcTime: 0`),
 * so the secret in its variables does not linger in memory after the sign-in page.
 */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signIn,
    gcTime: 0,
    onSuccess: (session) => queryClient.setQueryData(sessionKeys.current(), session),
  });
}
