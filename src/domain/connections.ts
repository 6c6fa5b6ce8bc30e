import { z } from 'zod';
import { SignInRequestSchema } from './session.ts';
import { RegionSchema } from './token.ts';

/**
 * Checked with a token request before saving (docs/security.md); `saveUnchecked` saves when the
 * token endpoint cannot be reached, never when it refuses them.
 */
export const VendorConnectionRequestSchema = SignInRequestSchema.pick({
  clientId: true,
  clientSecret: true,
})
  .extend({ saveUnchecked: z.boolean().optional() })
  .strict();
export type VendorConnectionRequest = z.infer<typeof VendorConnectionRequestSchema>;

/** Answer of `PUT /api/connections/{region}`. */
export const VendorConnectionSavedSchema = z.object({
  /** False: saved unchecked. */
  checked: z.boolean(),
});
export type VendorConnectionSaved = z.infer<typeof VendorConnectionSavedSchema>;

/** For every role; never the client ID or the secret. */
export const VendorConnectionStateSchema = z.object({
  region: RegionSchema,
  registered: z.boolean(),
});
export type VendorConnectionState = z.infer<typeof VendorConnectionStateSchema>;

/** An entry's `request` for kind `connection`; never the secret. */
export const ConnectionChangeSchema = z.object({
  change: z.enum(['register', 'replace']),
  clientId: z.string(),
  previousClientId: z.string().optional(),
  saveUnchecked: z.literal(true).optional(),
});
export type ConnectionChange = z.infer<typeof ConnectionChangeSchema>;

/** Never the secret. */
export const VendorConnectionInfoSchema = z.object({
  region: RegionSchema,
  clientId: z.string(),
  /** ISO 8601 UTC. */
  updatedAt: z.iso.datetime({ offset: true }),
  updatedBy: z.string().optional(),
});
export type VendorConnectionInfo = z.infer<typeof VendorConnectionInfoSchema>;

/** Body of `GET /api/connections`. */
export const VendorConnectionListSchema = z.object({
  connections: z.array(VendorConnectionInfoSchema),
});
export type VendorConnectionList = z.infer<typeof VendorConnectionListSchema>;

/** Answer of `POST /api/connections/{region}/check` when a token was issued. */
export const ConnectionCheckSchema = z.object({
  ok: z.literal(true),
  /** Seconds, when the token endpoint said. */
  expiresInS: z.number().optional(),
});
export type ConnectionCheck = z.infer<typeof ConnectionCheckSchema>;
