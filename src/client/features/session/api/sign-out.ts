import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** `DELETE /api/session`: the BFF destroys the server-side session and clears the cookie. */
export function signOut(): Promise<undefined> {
  return apiRequest('/session', null, { method: 'DELETE' });
}

/**
 * Signs out. `onSettled` runs whether or not the BFF answered: the operator asked to leave, so
 * the app forgets everything it holds either way.
 */
export function useSignOut({ onSettled }: { onSettled: () => void }) {
  return useMutation({ mutationFn: signOut, onSettled });
}
