import { useMutation } from '@tanstack/react-query';
import type { SignOutAnswer } from '#domain/session.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { rememberSignOutState } from '../lib/sign-out-state.ts';

/**
 * `DELETE /api/session`: 204, or in company sign-in the IdP's logout URL and the `state` it brings
 * back (OpenID Connect RP-Initiated Logout 1.0), kept for the sign-in page to check.
 */
export async function signOut(): Promise<SignOutAnswer> {
  // Loaded on leaving: the sign-in page (a refusal) paints without the classic zod (src/domain/sign-in-mode.ts).
  const { SignOutAnswerSchema } = await import('#domain/session.ts');
  const answer =
    (await apiRequest('/session', SignOutAnswerSchema.optional(), { method: 'DELETE' })) ?? {};
  if (answer.logoutUrl && answer.state) rememberSignOutState(answer.state);
  return answer;
}

/** Signs out; `onSettled` runs even without an answer, since the operator asked to leave. */
export function useSignOut({ onSettled }: { onSettled: (logoutUrl?: string) => void }) {
  return useMutation({
    mutationFn: signOut,
    onSettled: (answer) => onSettled(answer?.logoutUrl),
  });
}
