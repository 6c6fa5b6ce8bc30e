import { z } from 'zod';
import { SignInRequestSchema } from './session.ts';
import { RegionSchema } from './token.ts';

/**
 * Body of `PUT /api/connections/{region}`: the partner's client credentials an administrator
 * registers for a region (company sign-in; docs/security.md). The same fields, with the same
 * words, as the credentials form. The BFF requests a token with them before saving them;
 * `saveUnchecked` saves them when the token endpoint cannot be reached to check them (never
 * when it refuses them).
 */
export const VendorConnectionRequestSchema = SignInRequestSchema.pick({
  clientId: true,
  clientSecret: true,
})
  .extend({ saveUnchecked: z.boolean().optional() })
  .strict();
export type VendorConnectionRequest = z.infer<typeof VendorConnectionRequestSchema>;

/** Body of `PUT /api/connections/{region}` once the connection is saved. */
export const VendorConnectionSavedSchema = z.object({
  /**
   * True: the token endpoint issued a token with the credentials before they were saved; false:
   * saved unchecked (`saveUnchecked`), the token endpoint could not be reached.
   */
  checked: z.boolean(),
});
export type VendorConnectionSaved = z.infer<typeof VendorConnectionSavedSchema>;

/**
 * Body of `GET /api/connections/{region}`, for every role: whether operators can work in the
 * region, that is whether an administrator registered its connection. Never the client ID or
 * the secret.
 */
export const VendorConnectionStateSchema = z.object({
  region: RegionSchema,
  registered: z.boolean(),
});
export type VendorConnectionState = z.infer<typeof VendorConnectionStateSchema>;

/**
 * What a connection change records in the command ledger (`request` of an entry of kind
 * `connection`, shown on the Audit page): registered for the first time or replaced, the client
 * ID before and after, and whether the administrator chose to save it unchecked. Never the
 * secret.
 */
export const ConnectionChangeSchema = z.object({
  change: z.enum(['register', 'replace']),
  clientId: z.string(),
  previousClientId: z.string().optional(),
  saveUnchecked: z.literal(true).optional(),
});
export type ConnectionChange = z.infer<typeof ConnectionChangeSchema>;

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
