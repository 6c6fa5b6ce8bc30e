/**
 * Security suite of the BFF (docs/security.md), over real HTTP with the sandbox, on PGlite and
 * (with TEST_DATABASE_URL) PostgreSQL: cookie attributes, CSRF from the router's own route
 * table, session fixation, expired and destroyed sessions, traversal and unknown paths never
 * reaching the upstream, sign-in rate limiting, and a scan proving the secret and the tokens
 * appear in no response, header, log line or built asset.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { routeTable } from '#server/http/route-table.ts';
import { SESSION_IDLE_TIMEOUT_MS } from '#server/session/session-store.ts';
import { DATABASE_KINDS } from '../support/databases.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_AU, DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SAFE = new Set(['GET', 'HEAD']);

/** A URL for a route pattern: every `:param` gets a valid ID; `*` a harmless file name. */
const concrete = (url: string) =>
  url.replace(/:(\w+)/g, (_m, name: string) => `${name}-1`).replace('*', 'index.html');

describe.each(DATABASE_KINDS)('BFF security on %s', { timeout: 60_000 }, (kind) => {
  let stack: Stack;
  const clock = { offsetMs: 0 };
  const browsers: BrowserClient[] = [];

  beforeAll(async () => {
    stack = await startStack({
      database: kind,
      tapTokens: true,
      captureLogs: true,
      bff: {
        testing: { now: () => Date.now() + clock.offsetMs, signInLimits: { failedPerClient: 3 } },
      },
    });
  });
  afterAll(() => stack.close());
  beforeEach(async () => {
    await stack.admin.reset();
  });

  const browser = () => {
    const created = stack.browser();
    browsers.push(created);
    return created;
  };
  const signedIn = async (credentials = DEMO_EU) => {
    const created = browser();
    expect((await created.signIn(credentials)).status).toBe(200);
    return created;
  };
  const upstreamRequests = async () => (await stack.admin.stats()).requests as number;
  const sessionRows = async () => {
    const result = (await stack.database.db.execute(
      'select count(*)::int as n from bff.sessions',
    )) as unknown as { rows: { n: number }[] };
    return result.rows[0]?.n ?? 0;
  };

  it('sets the session cookie HttpOnly, SameSite=Strict, Path=/, host-only and for the session only', async () => {
    const response = await browser().signIn(DEMO_EU);
    const [line] = response.headers['set-cookie'] ?? [];
    const attributes = (line ?? '').split(';').map((a) => a.trim().toLowerCase());
    expect(attributes[0]).toMatch(/^powerdeck_session=[a-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/']));
    expect(attributes.some((a) => a.startsWith('domain='))).toBe(false);
    expect(attributes.some((a) => a.startsWith('max-age=') || a.startsWith('expires='))).toBe(
      false,
    );
  });

  it('refuses every state-changing route of the route table without CSRF proof, before the upstream', async () => {
    const user = await signedIn();
    const table = routeTable(stack.bff);
    const changing = table.filter((r) => r.url.startsWith('/api') && !SAFE.has(r.method));
    const methods = new Set(changing.map((r) => `${r.method} ${r.url}`));
    for (const expected of [
      'POST /api/session',
      'DELETE /api/session',
      'POST /api/sites',
      'DELETE /api/sites/:siteId',
      'PUT /api/sites/:siteId/time-zone',
      'DELETE /api/sites/:siteId/time-zone',
      'POST /api/devices/:deviceId/commands',
      'PUT /api/devices/:deviceId/commands/:commandId/cancel',
      'POST /api/batches',
      'PUT /api/batches/:batchCommandId/cancel',
    ])
      expect(methods).toContain(expected);

    const before = await upstreamRequests();
    const attempts: [string, Record<string, string>][] = [
      ['no X-CSRF', { origin: stack.bffUrl }],
      ['foreign Origin', { 'x-csrf': '1', origin: 'https://evil.example' }],
      ['no Origin', { 'x-csrf': '1' }],
      ['cross-site', { 'x-csrf': '1', origin: stack.bffUrl, 'sec-fetch-site': 'cross-site' }],
    ];
    for (const route of changing)
      for (const [why, headers] of attempts) {
        const response = await user.request({
          method: route.method,
          path: concrete(route.url),
          csrf: false,
          headers,
          ...(route.method === 'POST' ? { json: {} } : {}),
        });
        expect(response.status, `${route.method} ${route.url} with ${why}`).toBe(403);
        if (route.method !== 'HEAD') expect(response.json()).toMatchObject({ code: 'csrf' });
      }
    for (const route of table.filter((r) => r.url.startsWith('/api') && r.method === 'GET')) {
      const response = await user.request({
        method: 'GET',
        path: concrete(route.url),
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      expect(response.status, `GET ${route.url} cross-site`).toBe(403);
    }
    expect(await upstreamRequests()).toBe(before);
    expect((await user.get('/api/session')).status).toBe(200);
  });

  it('does not adopt a planted session ID, and rotates the ID at every sign-in', async () => {
    const victim = browser();
    const planted = 'A'.repeat(43);
    victim.cookies.set('powerdeck_session', planted);
    await victim.signIn(DEMO_EU);
    const issued = victim.cookies.get('powerdeck_session');
    expect(issued).toBeDefined();
    expect(issued).not.toBe(planted);
    const attacker = browser();
    attacker.cookies.set('powerdeck_session', planted);
    expect((await attacker.get('/api/sites')).status).toBe(401);

    await victim.signIn(DEMO_EU);
    const rotated = victim.cookies.get('powerdeck_session');
    expect(rotated).not.toBe(issued);
    const old = browser();
    old.cookies.set('powerdeck_session', issued ?? '');
    expect((await old.get('/api/session')).status).toBe(401);
  });

  it('ends idle sessions and destroyed ones, deleting their stored secret', async () => {
    const idle = await signedIn();
    const out = await signedIn();
    const rowsBefore = JSON.stringify(await sessionRows());
    expect((await out.delete('/api/session')).status).toBe(204);
    const replay = browser();
    replay.cookies.set(
      'powerdeck_session',
      out.responses[0]?.headers['set-cookie']?.[0]?.split(/[=;]/)[1] ?? '',
    );
    expect((await replay.get('/api/sites')).status).toBe(401);
    expect(JSON.stringify(await sessionRows())).not.toBe(rowsBefore);

    clock.offsetMs += SESSION_IDLE_TIMEOUT_MS;
    try {
      const rowsBeforeExpiry = await sessionRows();
      const expired = await idle.get('/api/sites');
      expect(expired.status).toBe(401);
      expect(expired.json()).toMatchObject({ code: 'not_signed_in' });
      expect(await sessionRows()).toBe(rowsBeforeExpiry - 1);
    } finally {
      clock.offsetMs = 0;
    }
    const rows = (await stack.database.db.execute(
      'select secret_ciphertext from bff.sessions',
    )) as unknown as { rows?: unknown[] } | unknown[];
    expect(JSON.stringify(rows)).not.toContain(DEMO_EU.clientSecret);
  });

  it('never forwards traversal or unknown paths', async () => {
    const user = await signedIn();
    const before = await upstreamRequests();
    for (const target of [
      '/api/devices/..%2F..%2Fsites',
      '/api/devices/%2e%2e/commands/x',
      '/api/devices/%2E%2E%2F%2E%2E/commands/x',
      '/api/devices/BAT-EU-001-A/commands/x/../../../../sites',
      '/api/devices/BAT-EU-001-A%2Fcommands/x',
      '/api/devices/BAT-EU-001-A%5Ccommands/x',
      '/api/devices/BAT-EU-001-A%00/commands/x',
      '/api/./sites',
      '/api//sites',
      '/api/sites/../_sandbox/stats',
      '/api/eu/sites',
      '/api/_sandbox/stats',
      '/api/auth/oauth2/token',
      '/_sandbox/stats',
      '/eu/sites',
    ]) {
      const response = await user.get(target);
      expect([400, 404], target).toContain(response.status);
    }
    for (const method of ['PATCH', 'OPTIONS', 'TRACE', 'PROPFIND'])
      expect((await user.request({ method, path: '/api/sites' })).status).not.toBe(200);
    expect(await upstreamRequests()).toBe(before);
  });

  it('limits failed sign-ins per client ID, whatever the address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1)
      statuses.push((await browser().signIn({ ...DEMO_AU, clientSecret: `guess-${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const locked = await browser().signIn(DEMO_AU);
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBeDefined();
    expect(locked.headers['set-cookie']).toBeUndefined();
  });

  it('shows the secret and the tokens in no response, header, log line or built asset', async () => {
    // A journey that touches every kind of answer: sign-in, binding, a command, errors.
    const user = await signedIn();
    await user.post('/api/sites', { siteId: 'PLANT-EU-001' });
    const nowMs = await stack.admin.nowMs();
    await user.post('/api/devices/BAT-EU-001-A/commands', {
      powerControl: { targetBatteryPowerW: 500 },
      startTime: new Date(nowMs + 600_000).toISOString(),
      endTime: new Date(nowMs + 1_200_000).toISOString(),
    });
    await user.get('/api/ledger');
    await user.post('/api/sites', { siteId: 'PLANT-NOPE' });
    await user.get('/api/nope');
    await user.delete('/api/session');

    const secrets = [DEMO_EU.clientSecret, DEMO_AU.clientSecret, ...stack.tokens];
    expect(stack.tokens.length).toBeGreaterThan(0);
    const answers = browsers.flatMap((b) =>
      b.responses.map((r) => `${JSON.stringify(r.headers)}\n${r.text}`),
    );
    expect(answers.length).toBeGreaterThan(10);
    expect(stack.logLines.length).toBeGreaterThan(10);
    const assets = await readAssets();
    for (const secret of secrets) {
      expect(answers.filter((a) => a.includes(secret))).toEqual([]);
      expect(stack.logLines.filter((l) => l.includes(secret))).toEqual([]);
      expect(assets.filter((a) => a.text.includes(secret)).map((a) => a.file)).toEqual([]);
    }
  });
});

/** The built SPA when present, and in any case what it is built from. */
async function readAssets(): Promise<{ file: string; text: string }[]> {
  const files: string[] = [];
  const walk = async (target: string) => {
    const info = await stat(target).catch(() => undefined);
    if (!info) return;
    if (info.isFile()) return void files.push(target);
    for (const entry of await readdir(target)) await walk(path.join(target, entry));
  };
  for (const root of ['dist/client', 'src/client', 'public', 'index.html'])
    await walk(path.join(ROOT, root));
  const texts = await Promise.all(
    files
      .filter((f) => !f.includes(`${path.sep}__tests__${path.sep}`))
      .map(async (file) => ({ file, text: await readFile(file, 'utf8') })),
  );
  return texts;
}
