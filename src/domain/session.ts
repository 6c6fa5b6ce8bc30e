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

/** Body of `DELETE /api/session` in company sign-in: where the browser ends the IdP's session. */
export const SignOutAnswerSchema = z.object({ logoutUrl: z.url().optional() });
export type SignOutAnswer = z.infer<typeof SignOutAnswerSchema>;
