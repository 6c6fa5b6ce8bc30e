import { z } from 'zod';
import { DeviceIdSchema, SiteIdSchema } from '../../../src/domain/ids.ts';

/**
 * Where the contract suite points and with which credentials. Without `CONTRACT_BASE_URL` the suite
 * starts the sandbox in-process and uses the demo fixture (docs/architecture.md, Upstream
 * contract); with it, the same suite runs against that endpoint (a real vendor, or a sandbox
 * started elsewhere).
 */
export interface ContractConfig {
  /** `{auth_url}` of the region (spec 4), without the token path. */
  authUrl: string;
  /** `{base_url}` of the region (spec 4). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** A site the client may bind; its devices receive the suite's commands. */
  siteId: string;
  /** A device of {@link siteId} that supports `targetBatteryPowerW`. */
  deviceId: string;
  /** A second device of {@link siteId}, for batch and per-device rules. */
  secondDeviceId: string | undefined;
  /** A site that is never bound during a test, for the 403 rows. */
  otherSiteId: string | undefined;
  /** A site with more than 50 devices, for the batch limit rows (spec 8). */
  largeSiteId: string | undefined;
  /**
   * Sandbox admin API root (docs/architecture.md, Upstream contract); absent against a real vendor.
   */
  adminUrl: string | undefined;
  /** A client of the other region, for the region isolation row. */
  otherRegion:
    { authUrl: string; baseUrl: string; clientId: string; clientSecret: string } | undefined;
  /** True when the suite started the sandbox itself. */
  inProcessSandbox: boolean;
}

const optionalUrl = z.url().optional();

const ContractEnvSchema = z.object({
  CONTRACT_AUTH_URL: optionalUrl,
  CONTRACT_BASE_URL: optionalUrl,
  CONTRACT_CLIENT_ID: z.string().min(1).optional(),
  CONTRACT_CLIENT_SECRET: z.string().min(1).optional(),
  CONTRACT_SITE_ID: SiteIdSchema.optional(),
  CONTRACT_DEVICE_ID: DeviceIdSchema.optional(),
  CONTRACT_SECOND_DEVICE_ID: DeviceIdSchema.optional(),
  CONTRACT_OTHER_SITE_ID: SiteIdSchema.optional(),
  CONTRACT_LARGE_SITE_ID: SiteIdSchema.optional(),
  CONTRACT_ADMIN_URL: optionalUrl,
  CONTRACT_OTHER_AUTH_URL: optionalUrl,
  CONTRACT_OTHER_BASE_URL: optionalUrl,
  CONTRACT_OTHER_CLIENT_ID: z.string().min(1).optional(),
  CONTRACT_OTHER_CLIENT_SECRET: z.string().min(1).optional(),
});

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** True when the environment points the suite at an endpoint of its own. */
export function isExternalTarget(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.CONTRACT_BASE_URL);
}

/**
 * Reads the suite's settings for an external endpoint from the environment. Throws naming the
 * missing variables when `CONTRACT_BASE_URL` is set without the credentials and IDs it needs.
 */
export function externalConfig(env: NodeJS.ProcessEnv = process.env): ContractConfig {
  const parsed = ContractEnvSchema.parse(env);
  const required = {
    CONTRACT_BASE_URL: parsed.CONTRACT_BASE_URL,
    CONTRACT_CLIENT_ID: parsed.CONTRACT_CLIENT_ID,
    CONTRACT_CLIENT_SECRET: parsed.CONTRACT_CLIENT_SECRET,
    CONTRACT_SITE_ID: parsed.CONTRACT_SITE_ID,
    CONTRACT_DEVICE_ID: parsed.CONTRACT_DEVICE_ID,
  };
  const missing = Object.entries(required)
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length > 0)
    throw new Error(`The contract suite needs ${missing.join(', ')} with CONTRACT_BASE_URL`);
  const baseUrl = trimSlash(parsed.CONTRACT_BASE_URL ?? '');
  const other =
    parsed.CONTRACT_OTHER_BASE_URL &&
    parsed.CONTRACT_OTHER_CLIENT_ID &&
    parsed.CONTRACT_OTHER_CLIENT_SECRET
      ? {
          baseUrl: trimSlash(parsed.CONTRACT_OTHER_BASE_URL),
          authUrl: trimSlash(parsed.CONTRACT_OTHER_AUTH_URL ?? parsed.CONTRACT_OTHER_BASE_URL),
          clientId: parsed.CONTRACT_OTHER_CLIENT_ID,
          clientSecret: parsed.CONTRACT_OTHER_CLIENT_SECRET,
        }
      : undefined;
  return {
    authUrl: trimSlash(parsed.CONTRACT_AUTH_URL ?? baseUrl),
    baseUrl,
    clientId: parsed.CONTRACT_CLIENT_ID ?? '',
    clientSecret: parsed.CONTRACT_CLIENT_SECRET ?? '',
    siteId: parsed.CONTRACT_SITE_ID ?? '',
    deviceId: parsed.CONTRACT_DEVICE_ID ?? '',
    secondDeviceId: parsed.CONTRACT_SECOND_DEVICE_ID,
    otherSiteId: parsed.CONTRACT_OTHER_SITE_ID,
    largeSiteId: parsed.CONTRACT_LARGE_SITE_ID,
    adminUrl: parsed.CONTRACT_ADMIN_URL && trimSlash(parsed.CONTRACT_ADMIN_URL),
    otherRegion: other,
    inProcessSandbox: false,
  };
}

/**
 * Settings for the sandbox's demo fixture (docs/architecture.md, Upstream contract) listening at
 * `origin`: Europe's client `demo-eu`, site `PLANT-EU-001` (devices `BAT-EU-001-A`, `-B`, `-C`),
 * `PLANT-EU-002` as the unbound site, `PLANT-EU-100` (60 devices) for the batch limit and
 * Australia's `demo-au`.
 */
export function sandboxConfig(origin: string): ContractConfig {
  return {
    authUrl: `${origin}/eu`,
    baseUrl: `${origin}/eu`,
    clientId: 'demo-eu',
    clientSecret: 'demo-eu-secret',
    siteId: 'PLANT-EU-001',
    deviceId: 'BAT-EU-001-A',
    secondDeviceId: 'BAT-EU-001-B',
    otherSiteId: 'PLANT-EU-002',
    largeSiteId: 'PLANT-EU-100',
    adminUrl: origin,
    otherRegion: {
      authUrl: `${origin}/au`,
      baseUrl: `${origin}/au`,
      clientId: 'demo-au',
      clientSecret: 'demo-au-secret',
    },
    inProcessSandbox: true,
  };
}
