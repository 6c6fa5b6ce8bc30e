import { z } from 'zod';

/**
 * Regions of the service, each with its own token endpoint (docs/upstream.md, Sources and base
 * paths).
 */
export const REGIONS = ['eu', 'au'] as const;
export const RegionSchema = z.enum(REGIONS);
export type Region = z.infer<typeof RegionSchema>;

/** Words for a region. */
export const REGION_NAMES: Record<Region, string> = { eu: 'Europe', au: 'Australia' };

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
