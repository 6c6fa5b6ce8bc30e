import { z } from 'zod';
import { RoleSchema } from './roles.ts';
import { RegionSchema } from './token.ts';

/**
 * Body of the BFF's `POST /api/session` (docs/architecture.md, BFF surface): region and the
 * partner's client credentials; `operatorName` is optional, recorded with every ledger entry of the
 * session.
 */
export const SignInRequestSchema = z.strictObject({
  region: RegionSchema,
  clientId: z.string().trim().min(1, { error: 'Enter the client ID' }).max(200),
  clientSecret: z.string().min(1, { error: 'Enter the client secret' }).max(500),
  operatorName: z.string().trim().max(100).optional(),
});
export type SignInRequest = z.infer<typeof SignInRequestSchema>;

/**
 * The person a company sign-in authenticated (OpenID Connect Core 1.0, 2: `iss` and `sub` name
 * them for good; name and e-mail as the IdP gave them at sign-in).
 */
export const OperatorSchema = z.object({
  issuer: z.string(),
  subject: z.string(),
  name: z.string().optional(),
  email: z.string().optional(),
});
export type Operator = z.infer<typeof OperatorSchema>;

/**
 * Body of `GET /api/session` and of a successful sign-in: who is signed in, never a secret. The
 * credentials form: `clientId` and the typed `operatorName`. A company sign-in: `operator` and
 * `role`, and no client ID (the administrator's vendor connection serves).
 */
export const SessionInfoSchema = z.object({
  region: RegionSchema,
  /**
   * The region's budget of upstream calls per device (src/domain/device-budget.ts): `limit` calls
   * in any rolling `windowSeconds`, as the BFF is configured (the vendor's is 2 per 60). The pages
   * that explain queuing word it from here; absent from a BFF older than this field, read as the
   * vendor's.
   */
  deviceCallBudget: z.object({ limit: z.int().min(1), windowSeconds: z.int().min(1) }).optional(),
  clientId: z.string().optional(),
  operatorName: z.string().optional(),
  operator: OperatorSchema.optional(),
  role: RoleSchema.optional(),
  csrfHeader: z.literal('X-CSRF').optional(),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

/**
 * Body of `GET /api/session/mode`: how operators sign in here. `credentials`: the form with the
 * partner's client ID and secret; `oidc`: their company account (docs/security.md).
 */
export const SignInModeSchema = z.object({ mode: z.enum(['credentials', 'oidc']) });
export type SignInMode = z.infer<typeof SignInModeSchema>;

/**
 * Body of `DELETE /api/session` in company sign-in: where the browser ends the IdP's session
 * (OpenID Connect RP-Initiated Logout 1.0), and the `state` that URL carries, which the IdP hands
 * back on its return to `/sign-in`, where the page checks it before saying the person is signed
 * out of their company account too.
 */
export const SignOutAnswerSchema = z.object({
  logoutUrl: z.url().optional(),
  state: z.string().min(1).max(200).optional(),
});
export type SignOutAnswer = z.infer<typeof SignOutAnswerSchema>;

/**
 * Why a company sign-in was refused (docs/security.md, Company sign-in). The BFF sends the browser
 * to `/sign-in?refused=<code>`, where the sign-in page says in the operator's words what happened
 * and what to do; the technical cause is in the BFF's log. The provider's own error codes
 * (RFC 6749 4.1.2.1 and 5.2) are grouped by what the operator can do about them:
 *
 * - `no_role`: signed in at the IdP, but the roles claim holds no powerdeck role.
 * - `access_denied`: the person cancelled at the IdP, or the IdP refused them powerdeck.
 * - `invalid_client`: the token endpoint refused powerdeck's client ID or secret (or the way it
 *   was sent), also when it said so with `unauthorized_client` (Glewlwyd).
 * - `invalid_grant`: the one-time code had expired, was used twice or belonged to another
 *   attempt (PKCE).
 * - `unauthorized_client`: the authorization endpoint does not let powerdeck's client use the
 *   authorization code.
 * - `request_refused`: the IdP refused the request itself (`invalid_request`, `invalid_scope`,
 *   `unsupported_grant_type`, `unsupported_response_type`): its set-up for powerdeck differs.
 * - `client_auth_unsupported`: the provider lists no client authentication powerdeck can use.
 * - `idp_error`: any other error the IdP answered (such as `login_required`).
 * - `idp_unavailable`: the IdP failed (`server_error`, `temporarily_unavailable`, a 5xx, an
 *   unreadable answer).
 * - `idp_unreachable`: the IdP could not be reached (discovery or a request failed).
 * - `response_mismatch`: the return did not belong to an attempt of this browser (state, nonce,
 *   the attempt cookie).
 * - `expired_attempt`: more than ten minutes at the IdP.
 * - `id_token_invalid`: the ID token failed its checks.
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
