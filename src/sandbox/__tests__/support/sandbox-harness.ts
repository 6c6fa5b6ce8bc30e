import { afterAll, beforeAll, beforeEach } from 'vitest';
import { buildSandboxApp, type SandboxApp, type SandboxOptions } from '../../app.ts';

/** A response as the tests read it. */
export interface HarnessResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The sandbox over `inject()`, state in memory, with helpers for tokens, calls and admin. */
export interface SandboxHarness {
  app: SandboxApp;
  /** A request to any path; `json` is sent as a JSON body. */
  call(
    method: Method,
    url: string,
    options?: { token?: string; json?: unknown; headers?: Record<string, string> },
  ): Promise<HarnessResponse>;
  /** A token request with the given form fields. */
  tokenRequest(region: 'eu' | 'au', form: Record<string, string>): Promise<HarnessResponse>;
  /** A valid token of a demo client. */
  token(client?: 'demo-eu' | 'demo-au'): Promise<string>;
  /** A demo client's token with `siteId` bound. */
  boundToken(siteId: string, client?: 'demo-eu' | 'demo-au'): Promise<string>;
  admin(method: Method, path: string, json?: unknown): Promise<HarnessResponse>;
  nowMs(): Promise<number>;
  /**
   * Moves the sandbox clock a minute on: every device has its slots of the rate limit back (2
   * requests per device per rolling minute; docs/upstream.md, Rate limit). Tests that make more
   * calls about one device call it between them, never sleep.
   */
  nextMinute(): Promise<void>;
  close(): Promise<void>;
}

/** Base paths of the business operations of each region (docs/upstream.md). */
export const EU = '/eu/api/openapi/v1';
export const AU = '/au/api/openapi/v1';

/** The frozen wall clock of harness sandboxes: only admin clock moves change time. */
export const WALL_MS = Date.parse('2030-06-01T08:00:00.000Z');

/** Builds the sandbox in memory (no database) for a test file, on a frozen wall clock. */
export async function startHarness(options: Partial<SandboxOptions> = {}): Promise<SandboxHarness> {
  const app = await buildSandboxApp({
    dataDir: '/nonexistent',
    fixture: 'demo',
    adminEnabled: true,
    inMemory: true,
    wallNow: () => WALL_MS,
    ...options,
  });
  const call: SandboxHarness['call'] = async (method, url, callOptions = {}) => {
    const headers: Record<string, string> = { ...callOptions.headers };
    if (callOptions.token !== undefined) headers.authorization = `Bearer ${callOptions.token}`;
    if (callOptions.json !== undefined) headers['content-type'] = 'application/json';
    const response = await app.inject({
      method,
      url,
      headers,
      ...(callOptions.json === undefined ? {} : { payload: JSON.stringify(callOptions.json) }),
    });
    const text = response.body;
    return {
      status: response.statusCode,
      headers: response.headers,
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
    };
  };
  const tokenRequest: SandboxHarness['tokenRequest'] = async (region, form) => {
    const response = await app.inject({
      method: 'POST',
      url: `/${region}/api/auth/oauth2/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: JSON.parse(response.body) as unknown,
    };
  };
  const token: SandboxHarness['token'] = async (client = 'demo-eu') => {
    const response = await tokenRequest(client === 'demo-eu' ? 'eu' : 'au', {
      grant_type: 'client_credentials',
      client_id: client,
      client_secret: `${client}-secret`,
    });
    if (response.status !== 200) throw new Error(`token: ${response.status}`);
    return (response.body as { access_token: string }).access_token;
  };
  return {
    app,
    call,
    tokenRequest,
    token,
    async boundToken(siteId, client = 'demo-eu') {
      const accessToken = await token(client);
      const bound = await call('POST', `${client === 'demo-eu' ? EU : AU}/sites`, {
        token: accessToken,
        json: { siteId },
      });
      if (bound.status !== 200) throw new Error(`bind: ${bound.status}`);
      return accessToken;
    },
    admin: (method, path, json) => call(method, `/_sandbox${path}`, { json }),
    async nowMs() {
      const response = await call('GET', '/_sandbox/clock');
      return Date.parse((response.body as { now: string }).now);
    },
    async nextMinute() {
      const moved = await call('POST', '/_sandbox/clock', { json: { advanceMs: MINUTE_MS } });
      if (moved.status !== 200) throw new Error(`clock: ${moved.status}`);
    },
    close: () => app.close(),
  };
}

/**
 * One sandbox for the calling test file (or `describe` block), started before its tests, closed
 * after them and reset through the admin API before each test, so that no test sees another's
 * tokens, bindings, commands or clock. The harness it returns is usable in hooks and tests
 * registered after this call (not while the file is being collected).
 */
export function useSandboxHarness(): SandboxHarness {
  let current: SandboxHarness | undefined;
  const started = (): SandboxHarness => {
    if (current === undefined) throw new Error('the sandbox harness is used before it started');
    return current;
  };
  beforeAll(async () => {
    current = await startHarness();
  });
  afterAll(() => current?.close());
  beforeEach(async () => {
    await started().admin('POST', '/reset');
  });
  return new Proxy({} as SandboxHarness, {
    get: (_target, key) => Reflect.get(started(), key) as unknown,
  });
}

/** ISO timestamp of epoch ms. */
export const iso = (ms: number) => new Date(ms).toISOString();

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
