import { z } from 'zod';
import { SiteIdSchema } from './ids.ts';
import { RoleSchema } from './roles.ts';
import { RegionSchema } from './token.ts';

/**
 * API tokens (docs/security.md, API tokens; docs/automation.md): a script or another system acts
 * for one account with a role and, optionally, only on some sites, until the token's expiry.
 */

/** What every token starts with, so secret scanners find a leaked one (docs/security.md). */
export const API_TOKEN_PREFIX = 'pdk_';

/** An expiry is required, and is at most this many days ahead. */
export const MAX_API_TOKEN_DAYS = 365;

/** How many sites one token may be limited to. */
export const MAX_API_TOKEN_SITES = 100;

export const ApiTokenIdSchema = z.string().regex(/^[0-9a-f]{16}$/, {
  error: 'tokenId must be the 16 hexadecimal characters of a token ID',
});

/** Body of `POST /api/tokens`; the account is the one the administrator acts for. */
export const ApiTokenRequestSchema = z.strictObject({
  name: z.string().trim().min(1, { error: 'Name the token' }).max(100),
  role: RoleSchema,
  /** Absent or empty: every site of the account. */
  siteIds: z.array(SiteIdSchema).max(MAX_API_TOKEN_SITES).optional(),
  expiresInDays: z
    .int()
    .min(1, { error: 'A token lasts at least a day' })
    .max(MAX_API_TOKEN_DAYS, { error: `A token lasts at most ${MAX_API_TOKEN_DAYS} days` }),
});
export type ApiTokenRequest = z.infer<typeof ApiTokenRequestSchema>;

/** A token as listed: never its secret. */
export const ApiTokenSchema = z.object({
  id: ApiTokenIdSchema,
  name: z.string(),
  region: RegionSchema,
  clientId: z.string(),
  role: RoleSchema,
  /** Empty: every site of the account. */
  siteIds: z.array(z.string()),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  /** Who made it, in words. */
  madeBy: z.string(),
  lastUsedAt: z.iso.datetime().optional(),
  revokedAt: z.iso.datetime().optional(),
  revokedBy: z.string().optional(),
});
export type ApiToken = z.infer<typeof ApiTokenSchema>;

export const ApiTokenListSchema = z.object({ tokens: z.array(ApiTokenSchema) });
export type ApiTokenList = z.infer<typeof ApiTokenListSchema>;

/** Answer of `POST /api/tokens`: the only time the secret is answered. */
export const ApiTokenMadeSchema = z.object({
  token: ApiTokenSchema,
  /** `Authorization: Bearer <secret>`; shown once, stored only as a hash. */
  secret: z.string().startsWith(API_TOKEN_PREFIX),
});
export type ApiTokenMade = z.infer<typeof ApiTokenMadeSchema>;

/**
 * What a route's device, site or account is, as a token limited to some sites sees it: `device`
 * (the path's `deviceId`, on the token's sites), `site` (the path's `siteId`), `account` (the
 * whole account: refused to a token limited to sites), `public` (no account at all).
 */
export type ApiTokenReach = 'device' | 'site' | 'account' | 'public';
