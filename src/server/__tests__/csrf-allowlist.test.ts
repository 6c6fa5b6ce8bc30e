import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CSRF, ORIGIN, buildTestBff, fileDatabase, signIn, type TestBff } from './support/bff.ts';
import { rawRequest } from './support/raw-request.ts';
import {
  startFakeUpstream,
  vendorPage,
  vendorSite,
  type FakeUpstream,
} from './support/fake-upstream.ts';

const database = fileDatabase();

let fake: FakeUpstream;
let bff: TestBff;
let cookie: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', () => vendorPage('sites', []));
  fake.on('POST', '/sites', () => ({ message: 'onboarding success', siteId: 'PLANT-1' }));
  // A site without devices: the read model then has no device to read after the bind.
  fake.on('GET', '/sites/PLANT-1', () => vendorSite('PLANT-1', []));
  bff = await buildTestBff(fake, { database: database.handle });
  await bff.app.listen({ host: '127.0.0.1', port: 0 });
  cookie = await signIn(bff.app);
});
afterAll(async () => {
  await bff.app.close();
  await fake.close();
});
beforeEach(() => {
  fake.seen.length = 0;
});

describe('CSRF defence on /api', () => {
  const bind = (headers: Record<string, string>) =>
    bff.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: { cookie, ...headers },
      payload: { siteId: 'PLANT-1' },
    });

  it('forwards a same-origin call with X-CSRF: 1', async () => {
    const response = await bind(CSRF);
    expect(response.statusCode).toBe(201);
    expect(fake.seen.filter((seen) => seen.method === 'POST')).toHaveLength(1);
  });

  it.each([
    ['no X-CSRF header', { origin: ORIGIN }],
    ['X-CSRF other than 1', { 'x-csrf': 'yes', origin: ORIGIN }],
    ['no Origin', { 'x-csrf': '1' }],
    ['a foreign Origin', { 'x-csrf': '1', origin: 'http://evil.example' }],
    ['Origin null', { 'x-csrf': '1', origin: 'null' }],
    ['Sec-Fetch-Site cross-site', { ...CSRF, 'sec-fetch-site': 'cross-site' }],
  ])('refuses %s with 403 csrf, upstream untouched', async (_what, headers) => {
    const response = await bind(headers);
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json()).toMatchObject({ status: 403, code: 'csrf' });
    expect(fake.seen).toHaveLength(0);
  });

  it.each([
    ['/api/fleet-jobs', { selection: { siteIds: ['PLANT-1'] } }],
    ['/api/fleet-jobs/0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b/cancel', {}],
  ])('guards the fleet job call %s too', async (url, payload) => {
    for (const headers of [{ origin: ORIGIN }, { 'x-csrf': '1', origin: 'http://evil.example' }]) {
      const response = await bff.app.inject({
        method: 'POST',
        url,
        headers: { cookie, ...headers },
        payload,
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'csrf' });
    }
    expect(fake.seen).toHaveLength(0);
  });

  it('guards sign-in and sign-out too', async () => {
    const signInResponse = await bff.app.inject({
      method: 'POST',
      url: '/api/session',
      headers: { origin: ORIGIN },
      payload: { region: 'eu', clientId: 'client', clientSecret: 'secret' },
    });
    expect(signInResponse.statusCode).toBe(403);
    const signOut = await bff.app.inject({
      method: 'DELETE',
      url: '/api/session',
      headers: { cookie, origin: 'http://evil.example', 'x-csrf': '1' },
    });
    expect(signOut.statusCode).toBe(403);
    const still = await bff.app.inject({ method: 'GET', url: '/api/session', headers: { cookie } });
    expect(still.statusCode).toBe(200);
  });

  it('sends no CORS headers to a foreign origin', async () => {
    const response = await bff.app.inject({
      method: 'GET',
      url: '/api/session',
      headers: { cookie, origin: 'http://evil.example' },
    });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('the allowlist', () => {
  it.each([
    ['GET', '/api/devices/..%2F..%2Fsites', 400],
    ['GET', '/api/devices/BAT%5C1/commands/x', 400],
    ['GET', '/api//sites', 400],
    ['GET', '/api/admin', 404],
    ['GET', '/api/_sandbox/stats', 404],
    ['GET', '/api/devices', 404],
    ['GET', '/api/sites/extra', 405],
    ['PATCH', '/api/sites', 405],
    ['PUT', '/api/sites', 405],
    // The old mirror's paths are no routes.
    ['POST', '/api/device/BAT-1/commands', 404],
    ['POST', '/api/devices/commands/batch', 404],
    ['PUT', '/api/devices/commands/batch/b1/cancel', 404],
    ['DELETE', '/api/sites', 404],
    ['GET', '/api/devices/BAT-1/commands/cmd_1/extra', 404],
    ['DELETE', '/api/devices/BAT-1/commands/cmd_1', 405],
    ['GET', '/api/devices/BAT-1/commands/cmd_1/cancel', 405],
    ['GET', '/api/devices/BAT%201/commands/cmd_1', 400],
    ['GET', '/api/devices/-leading-dash/commands/cmd_1', 400],
    ['GET', `/api/devices/${'x'.repeat(129)}/commands/cmd_1`, 400],
    ['PUT', '/api/batches/b%3B1/cancel', 400],
    ['GET', '/api/batches', 405],
  ])('%s %s -> %i problem, nothing sent upstream', async (method, url, status) => {
    const response = await bff.app.inject({
      method: method as 'GET',
      url,
      headers: { cookie, ...CSRF },
    });
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(fake.seen).toHaveLength(0);
  });

  it.each([
    '/api/devices/%2e%2e/commands/x',
    '/api/devices/%2E%2E/commands/x',
    '/api/devices/BAT-1/commands/..',
    '/api/devices/BAT-1/../../sites',
    '/api/devices/./commands/x',
    '/api/devices/%2e/commands/x',
  ])(
    'refuses the dot segments of %s over real HTTP (inject would normalise them)',
    async (path) => {
      const response = await rawRequest(bff.app, 'GET', path, { cookie });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'invalid_path' });
      expect(fake.seen).toHaveLength(0);
    },
  );

  it('names the allowed methods on 405', async () => {
    const response = await bff.app.inject({
      method: 'PATCH',
      url: '/api/sites',
      headers: { cookie, ...CSRF },
    });
    expect(response.headers.allow).toBe('GET, HEAD, POST');
  });

  it('refuses unauthenticated calls with 401 before anything else', async () => {
    const response = await bff.app.inject({ method: 'GET', url: '/api/sites' });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('not_signed_in');
    expect(fake.seen).toHaveLength(0);
  });

  /** A signed-in POST /api/sites of `payload` as `contentType` (inject's own JSON when none). */
  const postSite = (payload: string | object, contentType?: string) =>
    bff.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: {
        cookie,
        ...CSRF,
        ...(contentType === undefined ? {} : { 'content-type': contentType }),
      },
      payload,
    });

  it('refuses bodies that are not JSON (415), too large (413) or invalid (400)', async () => {
    const text = await postSite('siteId=PLANT-1', 'text/plain');
    expect(text.statusCode).toBe(415);
    expect(text.json().code).toBe('unsupported_media_type');
    const form = await postSite('siteId=PLANT-1', 'application/x-www-form-urlencoded');
    expect(form.statusCode).toBe(415);
    const huge = await postSite(
      JSON.stringify({ siteId: 'x'.repeat(100_000) }),
      'application/json',
    );
    expect(huge.statusCode).toBe(413);
    expect(huge.json().detail).toBe('The request body is larger than 64 KiB.');
    const broken = await postSite('{"siteId":', 'application/json');
    expect(broken.statusCode).toBe(400);
    const extra = await postSite({ siteId: 'PLANT-1', admin: true });
    expect(extra.statusCode).toBe(400);
    const command = await bff.app.inject({
      method: 'POST',
      url: '/api/devices/BAT-1/commands',
      headers: { cookie, ...CSRF },
      payload: {
        powerControl: {},
        startTime: '2026-05-01T10:00:00Z',
        endTime: '2026-05-01T11:00:00Z',
      },
    });
    expect(command.statusCode).toBe(400);
    // Says what to change in the product's words, not the field's name.
    expect(command.json().detail).toContain('Set at least one power control');
    expect(command.json().detail).not.toContain('powerControl');
    expect(fake.seen).toHaveLength(0);
  });
});
