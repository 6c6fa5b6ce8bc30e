import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { TOKEN_PATH, TokenResponseSchema } from '#domain/token.ts';
import { API_BASE_PATH } from '#sandbox/vendor/schemas.ts';

/** The demo client of the Europe region (sandbox fixture `demo`, kept by `large`). */
export const DEMO_EU = {
  region: 'eu',
  clientId: 'demo-eu',
  clientSecret: 'demo-eu-secret',
} as const;

/**
 * The sandbox path of a vendor operation of the demo EU client: `/eu/api/openapi/v1<path>`, the
 * region's prefix and the vendor's base path (docs/upstream.md, Sources and base paths).
 */
export const vendorPath = (path: string) => `/${DEMO_EU.region}${API_BASE_PATH}${path}`;

export const SESSION_COOKIE = 'powerdeck_session';

/** A signed-in BFF session: its origin and the cookie header a browser would send. */
export interface BffSession {
  origin: string;
  cookie: string;
}

async function expectStatus(
  what: string,
  response: Dispatcher.ResponseData,
  ...accepted: number[]
): Promise<unknown> {
  const text = await response.body.text();
  if (!accepted.includes(response.statusCode))
    throw new Error(`${what}: HTTP ${response.statusCode} ${text.slice(0, 500)}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** Signs in the demo EU client and returns the session cookie. */
export async function signIn(origin: string): Promise<BffSession> {
  const response = await request(`${origin}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf': '1', origin },
    body: JSON.stringify(DEMO_EU),
  });
  await expectStatus('sign-in', response, 200, 201);
  const setCookie = response.headers['set-cookie'];
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const session = cookies
    .map((c) => c.split(';')[0] ?? '')
    .find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!session) throw new Error(`sign-in set no ${SESSION_COOKIE} cookie`);
  return { origin, cookie: session };
}

/** Calls a BFF route as the signed-in browser would (cookie, CSRF header, Origin). */
export async function bffCall(
  session: BffSession,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  ...accepted: number[]
): Promise<unknown> {
  const response = await request(`${session.origin}${path}`, {
    method,
    headers: {
      cookie: session.cookie,
      ...(method === 'GET' ? {} : { 'x-csrf': '1', origin: session.origin }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return expectStatus(
    `${method} ${path}`,
    response,
    ...(accepted.length ? accepted : [200, 201, 202, 204]),
  );
}

/**
 * A bearer token for the demo EU client straight from the sandbox's token endpoint, at the
 * region's root (docs/upstream.md, Tokens).
 */
export async function sandboxToken(sandboxOrigin: string): Promise<string> {
  const response = await request(`${sandboxOrigin}/eu${TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO_EU.clientId,
      client_secret: DEMO_EU.clientSecret,
    }).toString(),
  });
  return TokenResponseSchema.parse(await expectStatus('token', response, 200)).access_token;
}

/** Counters of the sandbox admin API (`GET /_sandbox/stats`). */
export interface SandboxStats {
  tokenRequests: number;
  requests: number;
  faultsInjected: number;
  /** Requests per route, keys like `eu GET /devices/:deviceId/commands/:commandId`. */
  byRoute?: Record<string, number>;
}

/** `GET /_sandbox/clock`'s answer. */
const SandboxClockSchema = z.object({ now: z.string() });

/** The sandbox admin API (src/sandbox/README.md) as the bench drives it. */
export function sandboxAdmin(sandboxOrigin: string) {
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) =>
    expectStatus(
      `sandbox ${method} ${path}`,
      await request(`${sandboxOrigin}/_sandbox${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? null : JSON.stringify(body),
      }),
      200,
      201,
      204,
    );
  return {
    stats: async () => (await call('GET', '/stats')) as SandboxStats,
    resetStats: () => call('DELETE', '/stats'),
    faults: (faults: {
      tokenTtlS?: number;
      latencyMs?: number;
      latencyJitterMs?: number;
      latencySeed?: string;
    }) => call('PUT', '/faults', faults),
    advanceClock: (advanceMs: number) => call('POST', '/clock', { advanceMs }),
    /** The sandbox clock, epoch ms. */
    nowMs: async () => Date.parse(SandboxClockSchema.parse(await call('GET', '/clock')).now),
  };
}
