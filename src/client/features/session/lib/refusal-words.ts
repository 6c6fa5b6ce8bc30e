import type { OidcRefusal } from '#domain/session.ts';

/** What the refusal page says: its title, what happened, and what to do. */
export interface RefusalWords {
  title: string;
  what: string;
  next: string;
  /** Signing out of the IdP is the way on (`primary`), one way (`offer`), or impossible (`none`). */
  signOut: 'primary' | 'offer' | 'none';
}

const ASK_ADMIN = 'Tell your powerdeck administrator; the server log names the provider’s reason.';

/** Company sign-in refusals by the BFF's code (domain `OIDC_REFUSALS`), docs/security.md; the chunk's own map, kept small. */
export const REFUSAL_WORDS: Record<OidcRefusal, RefusalWords> = {
  no_role: {
    title: 'Your account has no powerdeck role',
    what: 'Your company account signed in, but it holds none of the powerdeck roles (viewer, dispatcher or administrator).',
    next: 'Ask your administrator to give you a role, then sign in again. To sign in with another account, sign out of your company account first.',
    signOut: 'primary',
  },
  access_denied: {
    title: 'Sign-in cancelled or refused',
    what: 'The sign-in was cancelled at your company sign-in page, or your company sign-in refused you access to powerdeck.',
    next: 'Sign in again. If you did not cancel, ask your administrator whether your account may use powerdeck.',
    signOut: 'offer',
  },
  invalid_client: {
    title: 'Your company sign-in refused powerdeck',
    what: 'The provider refused powerdeck’s client ID or secret, so it could not finish your sign-in.',
    next: 'Signing in again will not help. Your administrator must check OIDC_CLIENT_ID and OIDC_CLIENT_SECRET against powerdeck’s registration at the provider (and OIDC_TOKEN_ENDPOINT_AUTH_METHOD, if the provider accepts the secret one way only).',
    signOut: 'offer',
  },
  invalid_grant: {
    title: 'This sign-in took too long or was used twice',
    what: 'The one-time code from your company sign-in had expired, had already been used, or belonged to another sign-in.',
    next: 'Sign in again.',
    signOut: 'offer',
  },
  unauthorized_client: {
    title: 'Your company sign-in does not let powerdeck sign people in',
    what: 'The provider does not allow powerdeck’s client the sign-in powerdeck asks for.',
    next: 'Signing in again will not help. Your administrator must allow the authorization code flow for powerdeck’s client (OIDC_CLIENT_ID) at the provider.',
    signOut: 'offer',
  },
  request_refused: {
    title: 'Your company sign-in refused powerdeck’s request',
    what: 'The provider refused the way powerdeck asked to sign you in: its set-up for powerdeck differs from powerdeck’s settings.',
    next: `Signing in again will not help. ${ASK_ADMIN}`,
    signOut: 'offer',
  },
  client_auth_unsupported: {
    title: 'powerdeck cannot sign in at your company sign-in',
    what: 'The provider accepts none of the ways powerdeck can send its client secret.',
    next: 'Your administrator must allow client_secret_basic or client_secret_post for powerdeck’s client at the provider, or set OIDC_TOKEN_ENDPOINT_AUTH_METHOD.',
    signOut: 'none',
  },
  idp_error: {
    title: 'Your company sign-in did not let this sign-in through',
    what: 'The provider answered with an error instead of signing you in.',
    next: `Sign in again. If it keeps happening: ${ASK_ADMIN}`,
    signOut: 'offer',
  },
  idp_unavailable: {
    title: 'Your company sign-in had a problem',
    what: 'The company sign-in service failed while finishing your sign-in.',
    next: 'Try again in a moment; if it keeps failing, tell your administrator.',
    signOut: 'offer',
  },
  idp_unreachable: {
    title: 'Your company sign-in cannot be reached',
    what: 'powerdeck could not reach your company sign-in service.',
    next: 'Try again in a moment; if it keeps failing, tell your administrator.',
    signOut: 'none',
  },
  response_mismatch: {
    title: 'This sign-in could not be completed',
    what: 'The answer from your company sign-in did not belong to a sign-in this browser started (an old, copied or forged link).',
    next: 'Sign in again from this page.',
    signOut: 'offer',
  },
  expired_attempt: {
    title: 'This sign-in took too long',
    what: 'More than ten minutes passed between leaving powerdeck and coming back from your company sign-in.',
    next: 'Sign in again.',
    signOut: 'offer',
  },
  id_token_invalid: {
    title: 'Your identity could not be verified',
    what: 'The identity token from your company sign-in failed its checks (expired, altered, or not meant for powerdeck).',
    next: `Sign in again. If it keeps failing (the clocks of the powerdeck server and the provider may differ): ${ASK_ADMIN}`,
    signOut: 'offer',
  },
};
