import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { ApiTokenListSchema, ApiTokenMadeSchema } from '#domain/api-tokens.ts';
import { CSRF, buildTestBff, fileDatabase, signIn, type TestBff } from './support/bff.ts';
import {
  startFakeUpstream,
  vendorPage,
  vendorSite,
  type FakeUpstream,
} from './support/fake-upstream.ts';

const database = fileDatabase();
const DAY_MS = 24 * 60 * 60 * 1000;
/** Above what one token of the walk sends, so only the test of the limit meets it. */
const REQUESTS_PER_MINUTE = 60;

let fake: FakeUpstream;
let bff: TestBff;
let cookie: string;

interface Operation {
  method: string;
  /** The document's path with its parameters filled in. */
  url: string;
  /** The roles `apiToken` lists under the operation's security; undefined: takes no token. */
  tokenRoles: string[] | undefined;
  /** No security at all (the document itself). */
  isPublic: boolean;
  /** Its path names a device or a site, which a token limited to sites is checked against. */
  namesDeviceOrSite: boolean;
}

/** A value for each path parameter: `DEV-1` is on `PLANT-1`. */
const PARAMETERS: Record<string, string> = {
  deviceId: 'DEV-1',
  siteId: 'PLANT-1',
  region: 'eu',
  tokenId: '0123456789abcdef',
  action: 'cancel',
  changeId: '0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b',
  jobId: '0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b',
};

let operations: Operation[] = [];

const tokens: Record<string, string> = {};

async function makeToken(body: object): Promise<string> {
  const response = await bff.app.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: { cookie, ...CSRF },
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(201);
  return ApiTokenMadeSchema.parse(response.json()).secret;
}

function call(operation: Operation, secret: string, headers: Record<string, string> = {}) {
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(operation.method);
  return bff.app.inject({
    method: operation.method as 'GET',
    url: operation.url,
    headers: { authorization: `Bearer ${secret}`, ...headers },
    ...(hasBody ? { payload: {} } : {}),
  });
}

function problemOf(response: LightMyRequestResponse): { status: number; code?: string } {
  const body = response.body ? (response.json() as { code?: string }) : {};
  return { status: response.statusCode, ...(body.code ? { code: body.code } : {}) };
}

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', () =>
    vendorPage('sites', [vendorSite('PLANT-1', ['DEV-1']), vendorSite('PLANT-2', ['DEV-2'])]),
  );
  fake.on('POST', '/sites', () => ({ message: 'onboarding success', siteId: 'PLANT-3' }));
  fake.on('GET', '/sites/PLANT-3', () => vendorSite('PLANT-3', []));
  bff = await buildTestBff(fake, {
    database: database.handle,
    testing: { apiTokenRequestsPerMinute: REQUESTS_PER_MINUTE },
  });
  cookie = await signIn(bff.app, { operatorName: 'Ada' });

  const document = (
    await bff.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { cookie } })
  ).json() as {
    paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => method !== 'head')
      .map(([method, operation]) => {
        const security = operation.security;
        const url = path.replace(/\{(\w+)\}/g, (_all, name: string) => PARAMETERS[name] ?? 'X-1');
        return {
          method: method.toUpperCase(),
          url,
          tokenRoles: security?.find((requirement) => 'apiToken' in requirement)?.['apiToken'],
          isPublic: security !== undefined && security.length === 0,
          namesDeviceOrSite: /\{(deviceId|siteId)\}/.test(path),
        };
      }),
  );

  const days = { expiresInDays: 30 };
  tokens['admin'] = await makeToken({ name: 'ops', role: 'admin', ...days });
  tokens['dispatcher'] = await makeToken({ name: 'trading desk', role: 'dispatcher', ...days });
  tokens['viewer'] = await makeToken({ name: 'dashboard', role: 'viewer', ...days });
  tokens['plant1'] = await makeToken({
    name: 'plant one',
    role: 'admin',
    siteIds: ['PLANT-1'],
    ...days,
  });
  tokens['plant2'] = await makeToken({
    name: 'plant two',
    role: 'admin',
    siteIds: ['PLANT-2'],
    ...days,
  });
  tokens['expiring'] = await makeToken({ name: 'short', role: 'admin', expiresInDays: 1 });
  tokens['revoked'] = await makeToken({ name: 'leaked', role: 'admin', ...days });
  const list = ApiTokenListSchema.parse(
    (await bff.app.inject({ method: 'GET', url: '/api/tokens', headers: { cookie } })).json(),
  );
  const leaked = list.tokens.find((token) => token.name === 'leaked');
  const revoked = await bff.app.inject({
    method: 'DELETE',
    url: `/api/tokens/${leaked?.id ?? ''}`,
    headers: { cookie, ...CSRF },
  });
  expect(revoked.statusCode).toBe(200);
});
afterAll(async () => {
  await bff.app.close();
  await fake.close();
});

describe('API tokens on every operation of the OpenAPI document', () => {
  it('walks a document with operations for tokens and without', () => {
    expect(operations.filter((operation) => operation.tokenRoles).length).toBeGreaterThan(20);
    expect(operations.filter((operation) => !operation.tokenRoles && !operation.isPublic)).toEqual(
      expect.arrayContaining([expect.objectContaining({ url: '/api/tokens', method: 'POST' })]),
    );
  });

  it('refuses an unknown, a revoked and an expired token everywhere with 401', async () => {
    const made = tokens['admin'] ?? '';
    const forged = `${made.slice(0, -4)}AAAA`;
    bff.clock.nowMs += 2 * DAY_MS;
    try {
      for (const operation of operations.filter((op) => op.url.startsWith('/api/'))) {
        const where = `${operation.method} ${operation.url}`;
        expect(problemOf(await call(operation, forged)), where).toEqual({
          status: 401,
          code: 'token_invalid',
        });
        expect(problemOf(await call(operation, tokens['revoked'] ?? '')), where).toEqual({
          status: 401,
          code: 'token_revoked',
        });
        expect(problemOf(await call(operation, tokens['expiring'] ?? '')), where).toEqual({
          status: 401,
          code: 'token_expired',
        });
      }
    } finally {
      bff.clock.nowMs -= 2 * DAY_MS;
    }
  });

  it('refuses a token on every operation that does not declare tokens', async () => {
    // The document itself is the one operation without security that takes a token.
    const undeclared = operations.filter(
      (op) => !op.tokenRoles && op.url.startsWith('/api/') && op.url !== '/api/openapi.json',
    );
    expect(undeclared.length).toBeGreaterThan(0);
    for (const operation of undeclared) {
      const response = await call(operation, tokens['admin'] ?? '');
      expect(problemOf(response), `${operation.method} ${operation.url}`).toEqual({
        status: 403,
        code: 'token_not_accepted',
      });
    }
  });

  it("refuses a token below the operation's role", async () => {
    const below: Record<string, string> = { dispatcher: 'viewer', admin: 'dispatcher' };
    let refused = 0;
    for (const operation of operations) {
      const needed = operation.tokenRoles?.[0];
      const lower = needed ? below[needed] : undefined;
      if (!lower) continue;
      const response = await call(operation, tokens[lower] ?? '');
      expect(problemOf(response), `${operation.method} ${operation.url}`).toEqual({
        status: 403,
        code: 'forbidden_role',
      });
      refused += 1;
    }
    expect(refused).toBeGreaterThan(10);
  });

  it("refuses a token limited to other sites, and one limited to the device's site on the account's routes", async () => {
    for (const operation of operations.filter((op) => op.tokenRoles)) {
      const where = `${operation.method} ${operation.url}`;
      expect(problemOf(await call(operation, tokens['plant2'] ?? '')), where).toEqual({
        status: 403,
        code: 'token_outside_sites',
      });
      const own = problemOf(await call(operation, tokens['plant1'] ?? ''));
      if (operation.namesDeviceOrSite) expect(own.status, where).not.toBeOneOf([401, 403]);
      else expect(own, where).toEqual({ status: 403, code: 'token_outside_sites' });
    }
  });

  it('lets a token of the role reach every operation that declares it, without CSRF proof', async () => {
    for (const operation of operations.filter((op) => op.tokenRoles)) {
      const needed = operation.tokenRoles?.[0] ?? 'viewer';
      const response = await call(operation, tokens[needed] ?? '');
      expect(
        response.statusCode,
        `${operation.method} ${operation.url}: ${response.body}`,
      ).not.toBeOneOf([401, 403]);
    }
  });

  it('asks a request with a token and a cookie for the CSRF proof', async () => {
    const changing = operations.filter(
      (op) => op.tokenRoles && !['GET', 'HEAD'].includes(op.method),
    );
    expect(changing.length).toBeGreaterThan(5);
    for (const operation of changing) {
      const response = await call(operation, tokens['admin'] ?? '', { cookie });
      expect(problemOf(response), `${operation.method} ${operation.url}`).toEqual({
        status: 403,
        code: 'csrf',
      });
    }
  });
});

describe('an API token acting for its account', () => {
  it('is recorded in the ledger under its name and its maker, and its use is listed', async () => {
    const bound = await bff.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: { authorization: `Bearer ${tokens['admin'] ?? ''}` },
      payload: { siteId: 'PLANT-3' },
    });
    expect(bound.statusCode, bound.body).toBe(201);
    const ledger = await bff.app.inject({
      method: 'GET',
      url: '/api/ledger',
      headers: { cookie },
    });
    const entry = (ledger.json() as { entries: Record<string, unknown>[] }).entries.find(
      (candidate) => candidate['kind'] === 'bind' && candidate['siteId'] === 'PLANT-3',
    );
    expect(entry).toMatchObject({ operatorName: 'ops (API token made by Ada)' });
    const list = ApiTokenListSchema.parse(
      (await bff.app.inject({ method: 'GET', url: '/api/tokens', headers: { cookie } })).json(),
    );
    const ops = list.tokens.find((token) => token.name === 'ops');
    expect(ops).toMatchObject({ role: 'admin', madeBy: 'Ada', siteIds: [] });
    expect(ops?.lastUsedAt).toBeDefined();
    expect(JSON.stringify(list)).not.toContain(tokens['admin']);
  });

  it('refuses a token more than its requests per minute with 429 and Retry-After', async () => {
    const secret = await makeToken({ name: 'busy', role: 'viewer', expiresInDays: 1 });
    const answers = await Promise.all(
      Array.from({ length: REQUESTS_PER_MINUTE + 1 }, () =>
        bff.app.inject({
          method: 'GET',
          url: '/api/session',
          headers: { authorization: `Bearer ${secret}` },
        }),
      ),
    );
    const limited = answers.filter((answer) => answer.statusCode === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]?.json()).toMatchObject({ code: 'too_many_token_requests' });
    expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThan(0);
    // Another token is not held up by this one's requests.
    const other = await bff.app.inject({
      method: 'GET',
      url: '/api/session',
      headers: { authorization: `Bearer ${tokens['viewer'] ?? ''}` },
    });
    expect(other.json()).toMatchObject({ code: 'token_not_accepted' });
  });

  it('refuses making a token without an expiry or beyond 365 days', async () => {
    for (const body of [
      { name: 'forever', role: 'admin' },
      { name: 'too long', role: 'admin', expiresInDays: 366 },
    ]) {
      const response = await bff.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: { cookie, ...CSRF },
        payload: body,
      });
      expect(response.statusCode).toBe(400);
    }
  });

  it('refuses making a token limited to a site the account has not bound, and names it', async () => {
    const response = await bff.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: { cookie, ...CSRF },
      payload: { name: 'typo', role: 'viewer', siteIds: ['PLANT-1', 'PLANT-9'], expiresInDays: 1 },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'unknown_or_unbound' });
    expect(response.json<{ detail: string }>().detail).toMatch(/^PLANT-9 is not a site bound/);
    const list = ApiTokenListSchema.parse(
      (await bff.app.inject({ method: 'GET', url: '/api/tokens', headers: { cookie } })).json(),
    );
    expect(list.tokens.map((token) => token.name)).not.toContain('typo');
  });
});
