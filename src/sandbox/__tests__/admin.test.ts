import { describe, expect, it } from 'vitest';
import { ErrorBodySchema, RateLimitBodySchema, SiteListSchema } from '../vendor/schemas.ts';
import {
  EU,
  HOUR_MS,
  iso,
  startHarness,
  useSandboxHarness,
  WALL_MS,
} from './support/sandbox-harness.ts';

const sandbox = useSandboxHarness();

describe('admin reset hook', () => {
  it('tells the embedding process after the reset, so a BFF beside it forgets its device budget', async () => {
    let calls = 0;
    const hooked = await startHarness({
      onReset: async () => {
        calls++;
      },
    });
    try {
      expect(calls).toBe(0);
      expect((await hooked.admin('POST', '/reset')).status).toBe(200);
      expect(calls).toBe(1);
    } finally {
      await hooked.close();
    }
  });
});

describe('admin clock (our choice)', () => {
  it('reads, advances and sets the clock forward; refuses to move it back', async () => {
    expect((await sandbox.admin('GET', '/clock')).body).toEqual({ now: iso(WALL_MS) });
    expect((await sandbox.admin('POST', '/clock', { advanceMs: HOUR_MS })).body).toEqual({
      now: iso(WALL_MS + HOUR_MS),
    });
    const target = iso(WALL_MS + 2 * HOUR_MS);
    expect((await sandbox.admin('POST', '/clock', { now: target })).body).toEqual({ now: target });
    const back = await sandbox.admin('POST', '/clock', { now: iso(WALL_MS) });
    expect(back.status).toBe(400);
    expect(ErrorBodySchema.parse(back.body)).toMatchObject({
      errorCode: 'INVALID_REQUEST',
      message: expect.stringContaining('now'),
    });
  });

  it('adds up advances asked for at once, on a clock that runs: none lands in the past of another', async () => {
    // A wall clock that runs (1 ms per reading), as a real one does between two requests.
    let wallMs = WALL_MS;
    const running = await startHarness({ wallNow: () => (wallMs += 1) });
    try {
      const moves = await Promise.all(
        [180_000, 120_000, 60_000].map((advanceMs) =>
          running.admin('POST', '/clock', { advanceMs }),
        ),
      );
      expect(moves.map((move) => move.status)).toEqual([200, 200, 200]);
      const { now } = (await running.admin('GET', '/clock')).body as { now: string };
      // Each reading of the wall clock in between moved it 1 ms: the three moves added up.
      expect(Date.parse(now) - wallMs).toBeGreaterThan(360_000 - 20);
      expect(Date.parse(now) - wallMs).toBeLessThanOrEqual(360_000);
    } finally {
      await running.close();
    }
  });

  it.each([{}, { advanceMs: -1 }, { advanceMs: 1, now: iso(WALL_MS) }, { now: 'tomorrow' }])(
    'answers 400 for the clock body %j',
    async (body) => {
      expect((await sandbox.admin('POST', '/clock', body)).status).toBe(400);
    },
  );

  it("reset puts the clock back to the wall clock and clears bindings and commands, but another partner's", async () => {
    const token = await sandbox.boundToken('PLANT-EU-001');
    await sandbox.admin('POST', '/clock', { advanceMs: HOUR_MS });
    await sandbox.admin('POST', '/reset');
    expect(await sandbox.nowMs()).toBe(WALL_MS);
    const sites = await sandbox.call('GET', `${EU}/sites`, { token });
    expect(SiteListSchema.parse(sites.body).total).toBe(0);
    const foreign = await sandbox.call('POST', `${EU}/sites`, {
      token,
      json: { siteId: 'PLANT-EU-003' },
    });
    expect(foreign.status).toBe(409);
  });
});

describe('the sandbox clock for whoever builds the app', () => {
  it('reads as the sandbox clock: moved by the admin API, back to the wall clock on reset', async () => {
    expect(sandbox.app.sandboxNow()).toBe(WALL_MS);
    await sandbox.admin('POST', '/clock', { advanceMs: HOUR_MS + 60_000 });
    expect(sandbox.app.sandboxNow()).toBe(WALL_MS + HOUR_MS + 60_000);
    await sandbox.admin('POST', '/reset');
    expect(sandbox.app.sandboxNow()).toBe(WALL_MS);
  });
});

describe('admin devices', () => {
  it('reports the new condition and shows it in the site list; 404 for an unknown device', async () => {
    const token = await sandbox.boundToken('PLANT-EU-002');
    const response = await sandbox.admin('PUT', '/devices/BAT-EU-002-B', { online: true });
    expect(response.body).toEqual({
      deviceId: 'BAT-EU-002-B',
      online: true,
      fault: false,
      behaviour: 'follows',
    });
    const { sites } = SiteListSchema.parse(
      (await sandbox.call('GET', `${EU}/sites`, { token })).body,
    );
    expect(sites[0]?.devices?.find((d) => d.id === 'BAT-EU-002-B')?.online).toBe(true);
    expect((await sandbox.admin('PUT', '/devices/NOPE-1', { fault: true })).status).toBe(404);
    expect((await sandbox.admin('PUT', '/devices/BAT-EU-002-B', { online: 'yes' })).status).toBe(
      400,
    );
  });
});

describe('admin faults and stats (stats are our addition)', () => {
  it('answers 429 in the rate limit shape with Retry-After past the per-minute limit; a minute later it passes', async () => {
    const token = await sandbox.boundToken('PLANT-EU-001');
    await sandbox.admin('PUT', '/faults', { rateLimitPerMinute: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i += 1)
      statuses.push(await sandbox.call('GET', `${EU}/sites`, { token }));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(RateLimitBodySchema.parse(statuses[2]?.body)).toEqual({
      code: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringContaining('2 requests per minute'),
      details: { limit: 2, windowSeconds: 60 },
      timestamp: iso(WALL_MS),
    });
    expect(statuses[2]?.headers).toMatchObject({
      'retry-after': '60',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '60',
    });
    const device = await sandbox.call('GET', `${EU}/devices/BAT-EU-001-A`, { token });
    expect(RateLimitBodySchema.parse(device.body).details.deviceId).toBe('BAT-EU-001-A');
    await sandbox.admin('POST', '/clock', { advanceMs: 60_000 });
    expect((await sandbox.call('GET', `${EU}/sites`, { token })).status).toBe(200);
  });

  it('answers the injected 5xx with an error body on every vendor route, token included; {} clears', async () => {
    const token = await sandbox.token();
    await sandbox.admin('PUT', '/faults', { errorRate: 1, errorStatus: 502 });
    const api = await sandbox.call('GET', `${EU}/sites`, { token });
    expect(api.status).toBe(502);
    expect(ErrorBodySchema.parse(api.body).errorCode).toBe('INTERNAL_ERROR');
    const tokenResponse = await sandbox.tokenRequest('eu', {
      grant_type: 'client_credentials',
      client_id: 'demo-eu',
      client_secret: 'demo-eu-secret',
    });
    expect(tokenResponse.status).toBe(502);
    await sandbox.admin('PUT', '/faults', { errorRate: 1 });
    expect(await sandbox.call('GET', `${EU}/sites`, { token })).toMatchObject({
      status: 503,
      body: { errorCode: 'SERVICE_UNAVAILABLE' },
    });
    expect((await sandbox.admin('GET', '/stats')).body).toMatchObject({ faultsInjected: 3 });
    await sandbox.admin('PUT', '/faults', {});
    expect((await sandbox.call('GET', `${EU}/sites`, { token })).status).toBe(200);
  });

  it('reports the faults it applies; a small latency still answers', async () => {
    const token = await sandbox.token();
    expect((await sandbox.admin('PUT', '/faults', { latencyMs: 1, tokenTtlS: 60 })).body).toEqual({
      latencyMs: 1,
      tokenTtlS: 60,
    });
    expect((await sandbox.admin('GET', '/faults')).body).toEqual({ latencyMs: 1, tokenTtlS: 60 });
    expect((await sandbox.call('GET', `${EU}/sites`, { token })).status).toBe(200);
    await sandbox.admin('POST', '/reset');
    expect((await sandbox.admin('GET', '/faults')).body).toEqual({});
  });

  it('refuses bad fault settings with 400', async () => {
    for (const body of [{ errorRate: 2 }, { errorStatus: 404 }, { tokenTtlS: 0 }, { other: 1 }])
      expect((await sandbox.admin('PUT', '/faults', body)).status).toBe(400);
  });

  it('counts token requests and API requests per route relative to the base path; DELETE zeroes them', async () => {
    await sandbox.admin('DELETE', '/stats');
    const token = await sandbox.token();
    await sandbox.call('GET', `${EU}/sites`, { token });
    await sandbox.call('GET', `${EU}/sites`, { token });
    await sandbox.call('GET', `${EU}/devices/BAT-EU-001-A/commands/cmd_1`, { token });
    const stats = (await sandbox.admin('GET', '/stats')).body;
    expect(stats).toEqual({
      tokenRequests: 1,
      requests: 3,
      faultsInjected: 0,
      byRoute: {
        'eu POST /api/auth/oauth2/token': 1,
        'eu GET /sites': 2,
        'eu GET /devices/:deviceId/commands/:commandId': 1,
      },
      // The device's site is not bound to this client: a 404 spends none of its rate limit.
      byDevice: {},
    });
    expect((await sandbox.admin('DELETE', '/stats')).body).toMatchObject({ requests: 0 });
  });
});

describe('admin API switched off', () => {
  it('answers 403 FORBIDDEN to every admin call and still serves the regions', async () => {
    const closed = await startHarness({ adminEnabled: false });
    try {
      for (const [method, path] of [
        ['POST', '/reset'],
        ['GET', '/clock'],
        ['PUT', '/faults'],
        ['GET', '/stats'],
        ['PUT', '/dialect'],
      ] as const) {
        const response = await closed.admin(method, path, method === 'PUT' ? {} : undefined);
        expect(response.status).toBe(403);
        expect(ErrorBodySchema.parse(response.body).errorCode).toBe('FORBIDDEN');
      }
      expect((await closed.call('GET', `${EU}/sites`)).status).toBe(401);
    } finally {
      await closed.close();
    }
  });
});

describe('unknown routes', () => {
  it("answers 404 NOT_FOUND as JSON, also for the retired paths of the project's own guesses", async () => {
    for (const [method, url] of [
      ['GET', '/eu/nothing'],
      ['GET', `${EU}/nothing`],
      ['GET', '/eu/sites'],
      ['POST', `${EU}/devices/commands/batch`],
      ['PUT', `${EU}/devices/commands/batch/batch_1/cancel`],
    ] as const) {
      const response = await sandbox.call(method, url, { token: await sandbox.token() });
      expect(response.status, url).toBe(404);
      expect(ErrorBodySchema.parse(response.body).errorCode).toBe('NOT_FOUND');
    }
  });
});
