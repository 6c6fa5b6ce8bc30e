import { z } from 'zod';
import {
  DeviceIdSchema,
  POWER_CONTROL_PROPERTIES,
  SiteIdSchema,
  type PowerControlProperty,
} from '#sandbox/vendor/schemas.ts';

/**
 * Where the contract suite points and with which credentials. Without `CONTRACT_BASE_URL` the suite
 * starts the sandbox in-process and uses the demo fixture (src/sandbox/README.md, Fixtures); with
 * it, the same suite runs against that endpoint (the vendor's hosts, a sandbox started elsewhere,
 * or a validating proxy in front of either).
 */
export interface ContractConfig {
  /** Origin of the region's token endpoint, without `/api/auth/oauth2/token`. */
  authUrl: string;
  /** Base URL of the region's business operations, with `/api/openapi/v1` (docs/upstream.md). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** A site the client may bind; its devices receive the suite's commands. */
  siteId: string;
  /** A device of {@link siteId} that supports `targetBatteryPowerW`. */
  deviceId: string;
  /** A second device of {@link siteId}, for batch and per-device rules. */
  secondDeviceId: string | undefined;
  /** A site the client may bind, bound only briefly, for the "not yours" rows. */
  otherSiteId: string | undefined;
  /** A site another partner client holds: binding it answers 409. */
  foreignSiteId: string | undefined;
  /** A site with more than 50 devices, for the batch limit rows. */
  largeSiteId: string | undefined;
  /**
   * A device of {@link siteId} and a control it does not support, for the `notSupported` rows:
   * the vendor publishes no list of supported controls, so this is the target's own knowledge.
   */
  unsupportedControl: { deviceId: string; property: PowerControlProperty } | undefined;
  /** Sandbox admin API root (src/sandbox/README.md, Admin API); absent against a real vendor. */
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
  CONTRACT_FOREIGN_SITE_ID: SiteIdSchema.optional(),
  CONTRACT_LARGE_SITE_ID: SiteIdSchema.optional(),
  CONTRACT_UNSUPPORTED_CONTROL: z
    .string()
    .regex(
      new RegExp(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}:(${POWER_CONTROL_PROPERTIES.join('|')})$`),
      {
        error:
          'CONTRACT_UNSUPPORTED_CONTROL must be deviceId:property, e.g. BAT-1:siteExportLimitW',
      },
    )
    .optional(),
  CONTRACT_ADMIN_URL: optionalUrl,
  CONTRACT_OTHER_AUTH_URL: optionalUrl,
  CONTRACT_OTHER_BASE_URL: optionalUrl,
  CONTRACT_OTHER_CLIENT_ID: z.string().min(1).optional(),
  CONTRACT_OTHER_CLIENT_SECRET: z.string().min(1).optional(),
});

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The token endpoint's origin when none is given: the base URL without `/api/openapi/v1`. */
const authOf = (baseUrl: string) => trimSlash(baseUrl).replace(/\/api\/openapi\/v1$/, '');

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
          authUrl: trimSlash(
            parsed.CONTRACT_OTHER_AUTH_URL ?? authOf(parsed.CONTRACT_OTHER_BASE_URL),
          ),
          clientId: parsed.CONTRACT_OTHER_CLIENT_ID,
          clientSecret: parsed.CONTRACT_OTHER_CLIENT_SECRET,
        }
      : undefined;
  return {
    authUrl: trimSlash(parsed.CONTRACT_AUTH_URL ?? authOf(baseUrl)),
    baseUrl,
    clientId: parsed.CONTRACT_CLIENT_ID ?? '',
    clientSecret: parsed.CONTRACT_CLIENT_SECRET ?? '',
    siteId: parsed.CONTRACT_SITE_ID ?? '',
    deviceId: parsed.CONTRACT_DEVICE_ID ?? '',
    secondDeviceId: parsed.CONTRACT_SECOND_DEVICE_ID,
    otherSiteId: parsed.CONTRACT_OTHER_SITE_ID,
    foreignSiteId: parsed.CONTRACT_FOREIGN_SITE_ID,
    largeSiteId: parsed.CONTRACT_LARGE_SITE_ID,
    unsupportedControl: parsed.CONTRACT_UNSUPPORTED_CONTROL
      ? {
          deviceId: parsed.CONTRACT_UNSUPPORTED_CONTROL.split(':')[0] ?? '',
          property: parsed.CONTRACT_UNSUPPORTED_CONTROL.split(':')[1] as PowerControlProperty,
        }
      : undefined,
    adminUrl: parsed.CONTRACT_ADMIN_URL && trimSlash(parsed.CONTRACT_ADMIN_URL),
    otherRegion: other,
    inProcessSandbox: false,
  };
}

/**
 * Settings for the sandbox's demo fixture (src/sandbox/README.md, Fixtures) listening at
 * `origin`: Europe's client `demo-eu`, site `PLANT-EU-001` (devices `BAT-EU-001-A`, `-B`, `-C`),
 * `PLANT-EU-002` as the site bound only briefly, `PLANT-EU-003` held by another partner,
 * `PLANT-EU-100` (60 devices) for the batch limit, `BAT-EU-001-C` without `siteExportLimitW`,
 * and Australia's `demo-au`.
 */
export function sandboxConfig(origin: string): ContractConfig {
  return {
    authUrl: `${origin}/eu`,
    baseUrl: `${origin}/eu/api/openapi/v1`,
    clientId: 'demo-eu',
    clientSecret: 'demo-eu-secret',
    siteId: 'PLANT-EU-001',
    deviceId: 'BAT-EU-001-A',
    secondDeviceId: 'BAT-EU-001-B',
    otherSiteId: 'PLANT-EU-002',
    foreignSiteId: 'PLANT-EU-003',
    largeSiteId: 'PLANT-EU-100',
    unsupportedControl: { deviceId: 'BAT-EU-001-C', property: 'siteExportLimitW' },
    adminUrl: origin,
    otherRegion: {
      authUrl: `${origin}/au`,
      baseUrl: `${origin}/au/api/openapi/v1`,
      clientId: 'demo-au',
      clientSecret: 'demo-au-secret',
    },
    inProcessSandbox: true,
  };
}
