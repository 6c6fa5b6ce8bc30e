import type { Region } from '#domain/token.ts';

/** The sandbox serves each region at `/{eu,au}` followed by it (docs/upstream.md). */
export const VENDOR_API_BASE_PATH = '/api/openapi/v1';

/** docs/architecture.md, Regions and tokens. */
export interface UpstreamRegion {
  authUrl: string;
  baseUrl: string;
}

/** A signed-in session as the upstream module needs it; its ID keys the cached token. */
export interface UpstreamCaller {
  id: string;
  region: Region;
  clientId: string;
  clientSecret: string;
}
