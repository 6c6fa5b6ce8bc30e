import { z } from 'zod';
import { SignInRequestSchema } from './session.ts';
import { RegionSchema } from './token.ts';

/**
 * Body of `PUT /api/connections/{region}`: the partner's client credentials an administrator
 * registers for a region (company sign-in; docs/security.md). The same fields, with the same
 * words, as the credentials form.
 */
export const VendorConnectionRequestSchema = SignInRequestSchema.pick({
  clientId: true,
  clientSecret: true,
}).strict();
export type VendorConnectionRequest = z.infer<typeof VendorConnectionRequestSchema>;

/** A region's connection as the administrator's page shows it: never the secret. */
export const VendorConnectionInfoSchema = z.object({
  region: RegionSchema,
  clientId: z.string(),
  /** When it was registered or last replaced, ISO 8601 UTC. */
  updatedAt: z.iso.datetime({ offset: true }),
  /** Display name of the administrator who did. */
  updatedBy: z.string().optional(),
});
export type VendorConnectionInfo = z.infer<typeof VendorConnectionInfoSchema>;

/** Body of `GET /api/connections`. */
export const VendorConnectionListSchema = z.object({
  connections: z.array(VendorConnectionInfoSchema),
});
export type VendorConnectionList = z.infer<typeof VendorConnectionListSchema>;

/** Body of `POST /api/connections/{region}/check` when the token endpoint issued a token. */
export const ConnectionCheckSchema = z.object({
  ok: z.literal(true),
  /** The token's lifetime, seconds, when the token endpoint said. */
  expiresInS: z.number().optional(),
});
export type ConnectionCheck = z.infer<typeof ConnectionCheckSchema>;
