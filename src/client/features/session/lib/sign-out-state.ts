/**
 * The company sign-out's `state` (OpenID Connect RP-Initiated Logout 1.0), kept in session storage
 * until the IdP returns it: only a match says the company account is signed out too.
 */
const STORAGE_KEY = 'powerdeck.signOutState';

/** Keeps `state` until the IdP brings it back; storage refused (private mode): not kept. */
export function rememberSignOutState(state: string): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, state);
  } catch {
    // Without storage the return is not recognised: the sign-in page just says nothing of it.
  }
}

/** True when `returned` is the `state` of this tab's own sign-out. Reads only; see {@link forgetSignOutState}. */
export function isOwnSignOutReturn(returned: string | null): boolean {
  if (returned === null || returned === '') return false;
  try {
    return sessionStorage.getItem(STORAGE_KEY) === returned;
  } catch {
    return false;
  }
}

/** Forgets the kept `state`: one sign-out, one return. */
export function forgetSignOutState(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing kept.
  }
}
