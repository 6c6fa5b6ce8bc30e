import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { buildServerApp, type ServerOptions } from '../../app.ts';
import { VENDOR_API_BASE_PATH } from '../../upstream/upstream-caller.ts';
import type { FakeUpstream } from './fake-upstream.ts';

export const ORIGIN = 'http://127.0.0.1:8080';
/** Headers a same-origin SPA request that changes something carries. */
export const CSRF = { 'x-csrf': '1', origin: ORIGIN } as const;

/**
 * A BFF over a fake upstream, with a clock the test moves: the BFF's and the upstream's (on which
 * the budget of upstream calls counts). The budget allows 1000 calls per device and minute unless
 * the test sets `deviceCallsPerMinute`: tests of other things make several calls on one device
 * without moving the clock; the budget's own tests set the vendor's 2.
 */
export interface TestBff {
  app: FastifyInstance;
  clock: { nowMs: number };
}

export async function buildTestBff(
  fake: FakeUpstream,
  overrides: Partial<ServerOptions> & { database: DatabaseHandle },
): Promise<TestBff> {
  const clock = { nowMs: Date.parse('2026-05-01T10:00:00Z') };
  const region = { authUrl: `${fake.url}/eu`, baseUrl: `${fake.url}/eu${VENDOR_API_BASE_PATH}` };
  const app = await buildServerApp({
    upstreams: { eu: region, au: region },
    publicOrigin: ORIGIN,
    upstreamClock: () => clock.nowMs,
    deviceCallsPerMinute: { eu: 1000, au: 1000 },
    ...overrides,
    // The fleet snapshot reads only when a test asks (`app.fleetSnapshots.runDue()`): its timer
    // would call the fake at a moment of its own.
    testing: { now: () => clock.nowMs, fleetSnapshotTickMs: 0, ...overrides.testing },
  });
  return { app, clock };
}

/**
 * Signs in (by default as the fake's `client` in `eu`) and returns the `cookie` header to send
 * afterwards.
 */
export async function signIn(
  app: FastifyInstance,
  as: {
    region?: 'eu' | 'au';
    clientId?: string;
    clientSecret?: string;
    operatorName?: string;
  } = {},
): Promise<string> {
  const response = await signInAnswer(app, as);
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.body}`);
  return cookieHeader(response);
}

/**
 * The answer to a credentials sign-in of the fake's `client` in `eu` with `fields` over those,
 * sent as the SPA sends it (CSRF headers), with `headers` added: for the tests of a refused or
 * odd sign-in.
 */
export function signInAnswer(
  app: FastifyInstance,
  fields: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/api/session',
    headers: { ...CSRF, ...headers },
    payload: { region: 'eu', clientId: 'client', clientSecret: 'secret', ...fields },
  });
}

/**
 * A request that changes something as the signed-in SPA sends it: the session's `cookie` and the
 * same-origin CSRF headers, with `payload` (an object, sent as JSON) where there is one.
 */
export function sendSignedIn(
  app: FastifyInstance,
  cookie: string,
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: { cookie, ...CSRF },
    ...(payload === undefined ? {} : { payload }),
  });
}

/** The `name=value` pairs of a response's Set-Cookie headers, as a request `cookie` header. */
export function cookieHeader(response: LightMyRequestResponse): string {
  return response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}

/**
 * One fresh PGlite database for the BFFs of a test file: created before its tests (a copy of the
 * empty template, test/support/databases.ts) and dropped after them. Call it at the top of the
 * file (or a `describe`); read `handle` in a test or a later hook. The BFFs of one file share it,
 * as they share the file's fake upstream.
 */
export function fileDatabase(): { readonly handle: DatabaseHandle } {
  let testDb: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    testDb = await createTestDatabase('pglite');
    handle = await testDb.open();
  });
  afterAll(() => testDb?.drop());
  return {
    get handle() {
      if (!handle) throw new Error('the file database is opened in beforeAll');
      return handle;
    },
  };
}
