import { z } from 'zod';
import { REGIONS } from './regions.ts';

export { REGION_NAMES, REGIONS, type Region } from './regions.ts';

/** A region of the service (`regions.ts`). */
export const RegionSchema = z.enum(REGIONS);

/**
 * Path of the token endpoint under a region's auth URL (docs/upstream.md, Sources and base
 * paths).
 */
export const TOKEN_PATH = '/api/auth/oauth2/token';

/**
 * Form fields of the token request (docs/upstream.md, Tokens),
 * `application/x-www-form-urlencoded`.
 */
export const TokenRequestSchema = z.object({
  grant_type: z.literal('client_credentials', {
    error: 'grant_type must be client_credentials',
  }),
  client_id: z.string().min(1, { error: 'client_id is required' }),
  client_secret: z.string().min(1, { error: 'client_secret is required' }),
});
export type TokenRequest = z.infer<typeof TokenRequestSchema>;

/** Token response (docs/upstream.md, Tokens); `expires_in` is the lifetime in seconds. */
export const TokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().regex(/^bearer$/i),
  expires_in: z.number().int().positive(),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;
