import * as z from 'zod/mini';

/**
 * What the sign-in page reads before its first paint: how this server signs operators in and why
 * a company sign-in was refused. Made with `zod/mini`, so the page's first paint does not wait for
 * the classic `zod` (src/client/zod-mini-jitless.ts); `session.ts` re-exports them.
 */

/** `oidc`: their company account (docs/security.md). */
export const SIGN_IN_MODES = ['credentials', 'oidc'] as const;
export const SignInModeSchema = z.object({ mode: z.enum(SIGN_IN_MODES) });
export type SignInMode = z.infer<typeof SignInModeSchema>;

/**
 * Why a company sign-in was refused, grouped by what the operator can do; the browser goes to
 * `/sign-in?refused=<code>` (docs/security.md, Company sign-in). The IdP's codes (RFC 6749 4.1.2.1,
 * 5.2) map so: `invalid_client` also for `unauthorized_client` at the token endpoint (Glewlwyd);
 * `request_refused` for `invalid_request`, `invalid_scope`, `unsupported_*`; `idp_unavailable`
 * for `server_error`, `temporarily_unavailable`, a 5xx; `expired_attempt` past ten minutes.
 */
export const OIDC_REFUSALS = [
  'no_role',
  'access_denied',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'request_refused',
  'client_auth_unsupported',
  'idp_error',
  'idp_unavailable',
  'idp_unreachable',
  'response_mismatch',
  'expired_attempt',
  'id_token_invalid',
] as const;
export const OidcRefusalSchema = z.enum(OIDC_REFUSALS);
export type OidcRefusal = z.infer<typeof OidcRefusalSchema>;
