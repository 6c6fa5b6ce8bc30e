import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SignInRequest } from '#domain/session.ts';
import { SessionInfoSchema, type SessionInfo } from '#domain/session.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { sessionKeys } from './session-keys.ts';

/** `POST /api/session` (docs/architecture.md, BFF surface): sets the session cookie; 401 `invalid_credentials`. */
export function signIn(request: SignInRequest): Promise<SessionInfo> {
  return apiRequest('/session', SessionInfoSchema, { method: 'POST', body: request });
}

/** Signs in; `gcTime: 0` so the secret in the variables does not linger after the page. */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signIn,
    gcTime: 0,
    onSuccess: (session) => queryClient.setQueryData(sessionKeys.current(), session),
  });
}
