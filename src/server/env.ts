import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_DEVICE_CALLS_PER_WINDOW } from '#domain/device-budget.ts';
import { SNAPSHOT_PERIOD_MS } from '#domain/fleet-picture.ts';
import { DEFAULT_IDLE_READ_EVERY_MS, DEFAULT_OPEN_READ_EVERY_MS } from '#domain/refresh-policy.ts';
import { ROLES, type Role } from '#domain/roles.ts';
import { REGIONS, type Region } from '#domain/token.ts';
import { VENDOR_API_BASE_PATH, type UpstreamRegion } from './upstream/upstream-caller.ts';

/** The BFF's settings, parsed once at start-up (docs/architecture.md, Running it). */
export interface ServerEnv {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  sessionKey?: string;
  publicOrigin: string;
  upstreams: Record<Region, UpstreamRegion>;
  /** True when no upstream URL is configured: the sandbox on `SANDBOX_PORT` is the upstream. */
  usesSandbox: boolean;
  /** Upstream header and body timeout (`UPSTREAM_TIMEOUT_MS`, default 10 000). */
  upstreamTimeoutMs: number;
  /**
   * Upstream calls each device may make per rolling minute, per region
   * (`EU_DEVICE_CALLS_PER_MINUTE`, `AU_DEVICE_CALLS_PER_MINUTE`, default 2: the vendor's limit;
   * docs/decisions/007-device-call-budget.md, section 1).
   */
  deviceCallsPerMinute: Record<Region, number>;
  /**
   * How often the read model reads a device's history besides the moments its commands' states
   * can change (docs/architecture.md, Read model), ms: with an open command
   * (`DEVICE_READ_OPEN_EVERY_S`, default 300) and without (`DEVICE_READ_IDLE_EVERY_S`, default
   * 1800; 0: never, so a command made outside powerdeck shows only once the device is read for
   * another reason).
   */
  deviceReadOpenEveryMs: number;
  deviceReadIdleEveryMs: number;
  /**
   * How often each bound device's latest sample is read for the fleet picture, ms
   * (`FLEET_SNAPSHOT_EVERY_S`, default 300: every five minutes; 0: never, and the overview shows
   * no measurements).
   */
  fleetSnapshotEveryMs: number;
  /** Company sign-in through OpenID Connect; absent: the credentials form (docs/security.md). */
  oidc?: OidcEnv;
  /**
   * Test-only routes (`TEST_ROUTES=1`, accepted only with a loopback `PUBLIC_ORIGIN`): the
   * browser tests' way to make a notification (`src/server/notifications/notification-routes.ts`).
   */
  testRoutes?: boolean;
  /**
   * Outgoing webhooks may go to private, loopback and link-local addresses
   * (`WEBHOOKS_ALLOW_PRIVATE_ADDRESSES=true`; default false: refused, so an endpoint cannot reach
   * the BFF's own network; docs/security.md, Webhooks). Tests and the browser tests' stack set it.
   */
  webhooksAllowPrivateAddresses?: boolean;
}

/**
 * How the BFF may authenticate at the IdP's token endpoint with its client secret (OpenID
 * Connect Core 1.0, 9), in the order it prefers them when the provider's discovery lists several:
 * `client_secret_basic` first, the default of OpenID Connect Discovery 1.0 (section 3) and of most
 * providers' client registrations, then `client_secret_post`.
 */
export const OIDC_CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
export type OidcClientAuthMethod = (typeof OIDC_CLIENT_AUTH_METHODS)[number];

/**
 * Operator sign-in through the company's OpenID Connect provider (`OIDC_*` variables; README,
 * Sign-in for teams). The BFF is a confidential client authenticating with its client secret;
 * its redirect URI is `PUBLIC_ORIGIN` + `/api/session/oidc/callback`.
 */
export interface OidcEnv {
  /** Issuer identifier (`OIDC_ISSUER`); discovery reads `/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** Kept server-side only; sent to the IdP's token endpoint only. */
  clientSecret: string;
  /**
   * How the client secret is sent to the token endpoint (`OIDC_TOKEN_ENDPOINT_AUTH_METHOD`);
   * undefined: chosen from the provider's discovery ({@link OIDC_CLIENT_AUTH_METHODS}).
   */
  tokenEndpointAuthMethod?: OidcClientAuthMethod | undefined;
  /** Name of the ID token (or userinfo) claim that holds the roles (`OIDC_ROLES_CLAIM`). */
  rolesClaim: string;
  /**
   * The IdP's values that mean each role (`OIDC_ROLE_VIEWER`, `OIDC_ROLE_DISPATCHER`,
   * `OIDC_ROLE_ADMIN`, comma-separated; default the role's own name).
   */
  roleNames: Record<Role, string[]>;
}

const UPSTREAM_VARIABLES = ['EU_AUTH_URL', 'EU_BASE_URL', 'AU_AUTH_URL', 'AU_BASE_URL'] as const;

const httpUrl = (name: string) =>
  z
    .url({ protocol: /^https?$/, error: `${name} must be an http or https URL` })
    .transform((url) => url.replace(/\/+$/, ''));

const deviceCallsPerMinute = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a number of calls` })
    .int({ error: `${name} must be a whole number of calls` })
    .min(1, { error: `${name} must be 1-1000` })
    .max(1000, { error: `${name} must be 1-1000` })
    .default(DEFAULT_DEVICE_CALLS_PER_WINDOW);

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value));

const EnvSchema = z.object({
  PORT: z.coerce
    .number({ error: 'PORT must be a number' })
    .int()
    .min(0)
    .max(65535, { error: 'PORT must be 0-65535' })
    .default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalText,
  SESSION_KEY: optionalText,
  PUBLIC_ORIGIN: optionalText,
  SANDBOX_PORT: z.coerce
    .number({ error: 'SANDBOX_PORT must be a number' })
    .int()
    .min(1)
    .max(65535)
    .default(8090),
  UPSTREAM_TIMEOUT_MS: z.coerce
    .number({ error: 'UPSTREAM_TIMEOUT_MS must be a number' })
    .int()
    .min(100)
    .max(120_000, { error: 'UPSTREAM_TIMEOUT_MS must be 100-120000' })
    .default(10_000),
  EU_DEVICE_CALLS_PER_MINUTE: deviceCallsPerMinute('EU_DEVICE_CALLS_PER_MINUTE'),
  AU_DEVICE_CALLS_PER_MINUTE: deviceCallsPerMinute('AU_DEVICE_CALLS_PER_MINUTE'),
  DEVICE_READ_OPEN_EVERY_S: z.coerce
    .number({ error: 'DEVICE_READ_OPEN_EVERY_S must be a number of seconds' })
    .int({ error: 'DEVICE_READ_OPEN_EVERY_S must be a whole number of seconds' })
    .min(30, { error: 'DEVICE_READ_OPEN_EVERY_S must be 30-86400' })
    .max(86_400, { error: 'DEVICE_READ_OPEN_EVERY_S must be 30-86400' })
    .default(DEFAULT_OPEN_READ_EVERY_MS / 1000),
  DEVICE_READ_IDLE_EVERY_S: z.coerce
    .number({ error: 'DEVICE_READ_IDLE_EVERY_S must be a number of seconds' })
    .int({ error: 'DEVICE_READ_IDLE_EVERY_S must be a whole number of seconds' })
    .refine((s) => s === 0 || (s >= 60 && s <= 604_800), {
      error: 'DEVICE_READ_IDLE_EVERY_S must be 60-604800, or 0 to read idle devices never',
    })
    .default(DEFAULT_IDLE_READ_EVERY_MS / 1000),
  FLEET_SNAPSHOT_EVERY_S: z.coerce
    .number({ error: 'FLEET_SNAPSHOT_EVERY_S must be a number of seconds' })
    .int({ error: 'FLEET_SNAPSHOT_EVERY_S must be a whole number of seconds' })
    .refine((s) => s === 0 || (s >= 60 && s <= 86_400), {
      error: 'FLEET_SNAPSHOT_EVERY_S must be 60-86400, or 0 to read no latest samples',
    })
    .default(SNAPSHOT_PERIOD_MS / 1000),
  EU_AUTH_URL: optionalText,
  EU_BASE_URL: optionalText,
  AU_AUTH_URL: optionalText,
  AU_BASE_URL: optionalText,
  OIDC_ISSUER: optionalText,
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_TOKEN_ENDPOINT_AUTH_METHOD: optionalText.pipe(
    z
      .enum(OIDC_CLIENT_AUTH_METHODS, {
        error: `OIDC_TOKEN_ENDPOINT_AUTH_METHOD must be ${OIDC_CLIENT_AUTH_METHODS.join(' or ')} (or unset, to follow the provider's discovery)`,
      })
      .optional(),
  ),
  OIDC_ROLES_CLAIM: optionalText,
  OIDC_ROLE_VIEWER: optionalText,
  TEST_ROUTES: z.enum(['0', '1'], { error: 'TEST_ROUTES must be 0 or 1' }).optional(),
  WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: z
    .enum(['true', 'false'], { error: 'WEBHOOKS_ALLOW_PRIVATE_ADDRESSES must be true or false' })
    .optional(),
  OIDC_ROLE_DISPATCHER: optionalText,
  OIDC_ROLE_ADMIN: optionalText,
});

const OIDC_REQUIRED = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const;

/**
 * Parses the BFF's environment (docs/architecture.md, Running it). Upstream URLs come from
 * `EU_AUTH_URL`, `EU_BASE_URL`, `AU_AUTH_URL` and `AU_BASE_URL`: all four or none; with none the
 * sandbox serves both, its token endpoint under `http://127.0.0.1:${SANDBOX_PORT}/eu` (and
 * `/au`) and the vendor's API under `…/eu/api/openapi/v1`.
 * `PUBLIC_ORIGIN` defaults to `http://127.0.0.1:<port>` and must be a bare origin (scheme, host,
 * port).
 *
 * @throws Error naming every bad or missing variable.
 */
export function parseServerEnv(env: NodeJS.ProcessEnv): ServerEnv {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const values = parsed.data;

  const set = UPSTREAM_VARIABLES.filter((name) => values[name] !== undefined);
  const missing = UPSTREAM_VARIABLES.filter((name) => values[name] === undefined);
  if (set.length > 0 && missing.length > 0)
    throw new Error(
      `Invalid configuration: ${set.join(', ')} set but ${missing.join(', ')} missing; ` +
        'a real upstream needs all four of EU_AUTH_URL, EU_BASE_URL, AU_AUTH_URL, AU_BASE_URL ' +
        '(or none, to use the sandbox)',
    );
  const usesSandbox = set.length === 0;

  const upstreams = {} as Record<Region, UpstreamRegion>;
  const problems: string[] = [];
  for (const region of REGIONS) {
    const prefix = region.toUpperCase() as 'EU' | 'AU';
    if (usesSandbox) {
      const url = `http://127.0.0.1:${values.SANDBOX_PORT}/${region}`;
      upstreams[region] = { authUrl: url, baseUrl: `${url}${VENDOR_API_BASE_PATH}` };
      continue;
    }
    const auth = httpUrl(`${prefix}_AUTH_URL`).safeParse(values[`${prefix}_AUTH_URL`]);
    const base = httpUrl(`${prefix}_BASE_URL`).safeParse(values[`${prefix}_BASE_URL`]);
    if (!auth.success) problems.push(auth.error.issues[0]?.message ?? `${prefix}_AUTH_URL`);
    if (!base.success) problems.push(base.error.issues[0]?.message ?? `${prefix}_BASE_URL`);
    if (auth.success && base.success)
      upstreams[region] = { authUrl: auth.data, baseUrl: base.data };
  }

  const publicOrigin = values.PUBLIC_ORIGIN ?? `http://127.0.0.1:${values.PORT}`;
  if (!isBareOrigin(publicOrigin))
    problems.push(
      'PUBLIC_ORIGIN must be an origin such as https://powerdeck.example.com (scheme, host and optional port, no path)',
    );
  const oidc = parseOidc(values, problems);
  if (oidc && values.PUBLIC_ORIGIN === undefined)
    problems.push(
      'PUBLIC_ORIGIN must be set with OIDC_ISSUER: the redirect URI registered at the identity provider is PUBLIC_ORIGIN/api/session/oidc/callback',
    );
  const testRoutes = values.TEST_ROUTES === '1';
  if (testRoutes && isBareOrigin(publicOrigin) && !isLoopback(new URL(publicOrigin).hostname))
    problems.push(
      'TEST_ROUTES=1 is for tests on loopback only: PUBLIC_ORIGIN must be a loopback origin',
    );
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);

  return {
    port: values.PORT,
    host: values.HOST,
    dataDir: path.resolve(values.DATA_DIR),
    ...(values.DATABASE_URL ? { databaseUrl: values.DATABASE_URL } : {}),
    ...(values.SESSION_KEY ? { sessionKey: values.SESSION_KEY } : {}),
    publicOrigin,
    upstreams,
    usesSandbox,
    upstreamTimeoutMs: values.UPSTREAM_TIMEOUT_MS,
    deviceCallsPerMinute: {
      eu: values.EU_DEVICE_CALLS_PER_MINUTE,
      au: values.AU_DEVICE_CALLS_PER_MINUTE,
    },
    deviceReadOpenEveryMs: values.DEVICE_READ_OPEN_EVERY_S * 1000,
    deviceReadIdleEveryMs: values.DEVICE_READ_IDLE_EVERY_S * 1000,
    fleetSnapshotEveryMs: values.FLEET_SNAPSHOT_EVERY_S * 1000,
    ...(oidc ? { oidc } : {}),
    ...(testRoutes ? { testRoutes } : {}),
    ...(values.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES === 'true'
      ? { webhooksAllowPrivateAddresses: true }
      : {}),
  };
}

function parseOidc(values: z.infer<typeof EnvSchema>, problems: string[]): OidcEnv | undefined {
  const set = OIDC_REQUIRED.filter((name) => values[name] !== undefined);
  if (set.length === 0) return undefined;
  const missing = OIDC_REQUIRED.filter((name) => values[name] === undefined);
  if (missing.length > 0) {
    problems.push(
      `${set.join(', ')} set but ${missing.join(', ')} missing; company sign-in needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (or none, for the credentials form)`,
    );
    return undefined;
  }
  const issuer = z
    .url({ protocol: /^https?$/, error: 'OIDC_ISSUER must be an http or https URL' })
    .safeParse(values.OIDC_ISSUER);
  if (!issuer.success) {
    problems.push(issuer.error.issues[0]?.message ?? 'OIDC_ISSUER');
    return undefined;
  }
  const url = new URL(issuer.data);
  if (url.protocol === 'http:' && !isLoopback(url.hostname))
    problems.push('OIDC_ISSUER must be https (http is accepted on loopback only, for testing)');
  const names = {
    viewer: values.OIDC_ROLE_VIEWER,
    dispatcher: values.OIDC_ROLE_DISPATCHER,
    admin: values.OIDC_ROLE_ADMIN,
  };
  const roleNames = {} as Record<Role, string[]>;
  for (const role of ROLES) {
    const list = (names[role] ?? role)
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    if (list.length === 0)
      problems.push(`OIDC_ROLE_${role.toUpperCase()} must name at least one role value`);
    roleNames[role] = list;
  }
  return {
    issuer: issuer.data,
    clientId: values.OIDC_CLIENT_ID ?? '',
    clientSecret: values.OIDC_CLIENT_SECRET ?? '',
    ...(values.OIDC_TOKEN_ENDPOINT_AUTH_METHOD
      ? { tokenEndpointAuthMethod: values.OIDC_TOKEN_ENDPOINT_AUTH_METHOD }
      : {}),
    rolesClaim: values.OIDC_ROLES_CLAIM ?? 'roles',
    roleNames,
  };
}

/** True for a loopback host name or address (RFC 8252 7.3), where http serves tests. */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function isBareOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}
