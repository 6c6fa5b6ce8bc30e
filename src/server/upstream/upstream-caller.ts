import type { Region } from '../../domain/token.ts';

/**
 * The vendor's API path under a region's host (docs/upstream.md): the sandbox serves each region
 * at `/{eu,au}` followed by it, as the vendor serves it at its hosts' root.
 */
export const VENDOR_API_BASE_PATH = '/api/openapi/v1';

/**
 * Where one region of the upstream lives: the token endpoint's host and the API base URL
 * (docs/upstream.md, Tokens; docs/architecture.md, Regions and tokens).
 */
export interface UpstreamRegion {
  authUrl: string;
  baseUrl: string;
}

/**
 * Who calls the upstream: a signed-in session as the upstream module needs it (its region, its
 * client credentials for the token endpoint, and its ID, which keys the cached token). The
 * session store's `Session` is one; the upstream module never needs more of it.
 */
export interface UpstreamCaller {
  id: string;
  region: Region;
  clientId: string;
  clientSecret: string;
}
