import { z } from 'zod';
import { RoleSchema } from './roles.ts';
import { RegionSchema } from './token.ts';

/** `operatorName` is recorded with every ledger entry of the session. */
export const SignInRequestSchema = z.strictObject({
  region: RegionSchema,
  clientId: z.string().trim().min(1, { error: 'Enter the client ID' }).max(200),
  clientSecret: z.string().min(1, { error: 'Enter the client secret' }).max(500),
  operatorName: z.string().trim().max(100).optional(),
});
export type SignInRequest = z.infer<typeof SignInRequestSchema>;

/** `iss` and `sub` name them for good (OpenID Connect Core 1.0, 2). */
export const OperatorSchema = z.object({
  issuer: z.string(),
  subject: z.string(),
  name: z.string().optional(),
  email: z.string().optional(),
});
export type Operator = z.infer<typeof OperatorSchema>;

/**
 * The operator as a session answer and a stored actor keep them: issuer and subject, the display
 * name and e-mail only where the IdP gave them (an empty one is none), copied field by field so
 * that nothing else of the identity it is read from (a role, a token) comes along.
 */
export function operatorOf(identity: Operator): Operator {
  return {
    issuer: identity.issuer,
    subject: identity.subject,
    ...(identity.name ? { name: identity.name } : {}),
    ...(identity.email ? { email: identity.email } : {}),
  };
}

/** Never a secret; a company sign-in has no client ID (the administrator's connection serves). */
export const SessionInfoSchema = z.object({
  region: RegionSchema,
  /** As configured (src/domain/device-budget.ts); absent from an older BFF: the vendor's. */
  deviceCallBudget: z.object({ limit: z.int().min(1), windowSeconds: z.int().min(1) }).optional(),
  clientId: z.string().optional(),
  operatorName: z.string().optional(),
  operator: OperatorSchema.optional(),
  role: RoleSchema.optional(),
  csrfHeader: z.literal('X-CSRF').optional(),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

/** `state` comes back to `/sign-in`, which checks it (OpenID Connect RP-Initiated Logout 1.0). */
export const SignOutAnswerSchema = z.object({
  logoutUrl: z.url().optional(),
  state: z.string().min(1).max(200).optional(),
});
export type SignOutAnswer = z.infer<typeof SignOutAnswerSchema>;

// Read by the sign-in page before its first paint, hence made apart (sign-in-mode.ts says why).
export {
  OIDC_REFUSALS,
  OidcRefusalSchema,
  SignInModeSchema,
  type OidcRefusal,
  type SignInMode,
} from './sign-in-mode.ts';
