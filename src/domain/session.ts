import { z } from 'zod';
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

/** Body of `GET /api/session` and of a successful sign-in: who is signed in, never a secret. */
export const SessionInfoSchema = z.object({
  region: RegionSchema,
  clientId: z.string(),
  operatorName: z.string().optional(),
  csrfHeader: z.literal('X-CSRF').optional(),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;
