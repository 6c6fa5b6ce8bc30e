import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SessionInfo, SignInRequest } from '#domain/session.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { sessionKeys } from './session-keys.ts';

/** `POST /api/session` (docs/architecture.md, BFF surface): sets the session cookie; 401 `invalid_credentials`. */
export async function signIn(request: SignInRequest): Promise<SessionInfo> {
  // Loaded on sending: the sign-in page paints without the classic zod (src/domain/sign-in-mode.ts).
  const { SessionInfoSchema } = await import('#domain/session.ts');
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
