import { useMutation } from '@tanstack/react-query';
import { SignOutAnswerSchema, type SignOutAnswer } from '../../../../domain/session.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { rememberSignOutState } from '../lib/sign-out-state.ts';

/**
 * `DELETE /api/session`: the BFF destroys the server-side session and clears the cookie. In
 * company sign-in it answers the IdP's logout URL, where the browser ends that session too
 * (OpenID Connect RP-Initiated Logout 1.0), and the `state` the IdP brings back, which is kept
 * for the sign-in page to check; otherwise 204 without a body.
 */
export async function signOut(): Promise<SignOutAnswer> {
  const answer =
    (await apiRequest('/session', SignOutAnswerSchema.optional(), { method: 'DELETE' })) ?? {};
  if (answer.logoutUrl && answer.state) rememberSignOutState(answer.state);
  return answer;
}

/**
 * Signs out. `onSettled` runs whether or not the BFF answered: the operator asked to leave, so
 * the app forgets everything it holds either way; it gets the IdP's logout URL when there is one.
 */
export function useSignOut({ onSettled }: { onSettled: (logoutUrl?: string) => void }) {
  return useMutation({
    mutationFn: signOut,
    onSettled: (answer) => onSettled(answer?.logoutUrl),
  });
}
