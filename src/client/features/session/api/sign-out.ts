import { useMutation } from '@tanstack/react-query';
import { SignOutAnswerSchema, type SignOutAnswer } from '../../../../domain/session.ts';
import { apiRequest } from '../../../lib/api-client.ts';

/**
 * `DELETE /api/session`: the BFF destroys the server-side session and clears the cookie. After a
 * company sign-in it may answer the IdP's logout URL, where the browser ends that session too
 * (OpenID Connect RP-Initiated Logout 1.0); otherwise 204 without a body.
 */
export async function signOut(): Promise<SignOutAnswer> {
  return (await apiRequest('/session', SignOutAnswerSchema.optional(), { method: 'DELETE' })) ?? {};
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
