import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  HOUR_MS,
  iso,
  startHarness,
  WALL_MS,
  type SandboxHarness,
} from './support/sandbox-harness.ts';

let sandbox: SandboxHarness;
beforeAll(async () => {
  sandbox = await startHarness();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await sandbox.admin('POST', '/reset');
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
    expect(back).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect((back.body as { message: string }).message).toContain('now');
  });

  it.each([{}, { advanceMs: -1 }, { advanceMs: 1, now: iso(WALL_MS) }, { now: 'tomorrow' }])(
    'answers 400 for the clock body %j',
    async (body) => {
      expect((await sandbox.admin('POST', '/clock', body)).status).toBe(400);
    },
  );

  it('reset puts the clock back to the wall clock and clears bindings and commands', async () => {
    const token = await sandbox.boundToken('PLANT-EU-001');
    await sandbox.admin('POST', '/clock', { advanceMs: HOUR_MS });
    await sandbox.admin('POST', '/reset');
    expect(await sandbox.nowMs()).toBe(WALL_MS);
    expect((await sandbox.call('GET', '/eu/sites', { token })).body).toEqual({ sites: [] });
  });
});

describe('admin devices', () => {
  it('reports the new condition and shows it in the site list; 404 for an unknown device', async () => {
    const token = await sandbox.boundToken('PLANT-EU-002');
    const response = await sandbox.admin('PUT', '/devices/BAT-EU-002-B', { online: true });
    expect(response.body).toEqual({ deviceId: 'BAT-EU-002-B', online: true, fault: false });
    const sites = (await sandbox.call('GET', '/eu/sites', { token })).body as {
      sites: { devices: { deviceId: string; online: boolean }[] }[];
    };
    expect(sites.sites[0]?.devices.find((d) => d.deviceId === 'BAT-EU-002-B')?.online).toBe(true);
    expect((await sandbox.admin('PUT', '/devices/NOPE-1', { fault: true })).status).toBe(404);
    expect((await sandbox.admin('PUT', '/devices/BAT-EU-002-B', { online: 'yes' })).status).toBe(
      400,
    );
  });
});

describe('admin faults and stats (stats are our addition)', () => {
  it('answers 429 rate_limited with Retry-After past the per-minute limit; a minute later it passes', async () => {
    const token = await sandbox.token();
    await sandbox.admin('PUT', '/faults', { rateLimitPerMinute: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push(await sandbox.call('GET', '/eu/sites', { token }));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(statuses[2]?.body).toMatchObject({ code: 'rate_limited' });
    expect(statuses[2]?.headers['retry-after']).toBe('60');
    await sandbox.admin('POST', '/clock', { advanceMs: 60_000 });
    expect((await sandbox.call('GET', '/eu/sites', { token })).status).toBe(200);
  });

  it('answers the injected 5xx with an error body on every vendor route, token included; {} clears', async () => {
    const token = await sandbox.token();
    await sandbox.admin('PUT', '/faults', { errorRate: 1, errorStatus: 502 });
    const api = await sandbox.call('GET', '/eu/sites', { token });
    expect(api).toMatchObject({ status: 502, body: { code: 'upstream_error' } });
    const tokenResponse = await sandbox.tokenRequest('eu', {
      grant_type: 'client_credentials',
      client_id: 'demo-eu',
      client_secret: 'demo-eu-secret',
    });
    expect(tokenResponse.status).toBe(502);
    await sandbox.admin('PUT', '/faults', { errorRate: 1 });
    expect(await sandbox.call('GET', '/eu/sites', { token })).toMatchObject({
      status: 503,
      body: { code: 'unavailable' },
    });
    expect((await sandbox.admin('GET', '/stats')).body).toMatchObject({ faultsInjected: 3 });
    await sandbox.admin('PUT', '/faults', {});
    expect((await sandbox.call('GET', '/eu/sites', { token })).status).toBe(200);
  });

  it('reports the faults it applies; a small latency still answers', async () => {
    const token = await sandbox.token();
    expect((await sandbox.admin('PUT', '/faults', { latencyMs: 1, tokenTtlS: 60 })).body).toEqual({
      latencyMs: 1,
      tokenTtlS: 60,
    });
    expect((await sandbox.admin('GET', '/faults')).body).toEqual({ latencyMs: 1, tokenTtlS: 60 });
    expect((await sandbox.call('GET', '/eu/sites', { token })).status).toBe(200);
    await sandbox.admin('POST', '/reset');
    expect((await sandbox.admin('GET', '/faults')).body).toEqual({});
  });

  it('refuses bad fault settings with 400', async () => {
    for (const body of [{ errorRate: 2 }, { errorStatus: 404 }, { tokenTtlS: 0 }, { other: 1 }])
      expect((await sandbox.admin('PUT', '/faults', body)).status).toBe(400);
  });

  it('counts token requests and API requests per route; DELETE zeroes them', async () => {
    await sandbox.admin('DELETE', '/stats');
    const token = await sandbox.token();
    await sandbox.call('GET', '/eu/sites', { token });
    await sandbox.call('GET', '/eu/sites', { token });
    await sandbox.call('GET', '/eu/devices/BAT-EU-001-A/commands/cmd_1', { token });
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
    });
    expect((await sandbox.admin('DELETE', '/stats')).body).toMatchObject({ requests: 0 });
  });
});

describe('admin API switched off', () => {
  it('answers 403 to every admin call and still serves the regions', async () => {
    const closed = await startHarness({ adminEnabled: false });
    try {
      for (const [method, path] of [
        ['POST', '/reset'],
        ['GET', '/clock'],
        ['PUT', '/faults'],
        ['GET', '/stats'],
      ] as const)
        expect((await closed.admin(method, path, method === 'PUT' ? {} : undefined)).status).toBe(
          403,
        );
      expect((await closed.call('GET', '/eu/sites')).status).toBe(401);
    } finally {
      await closed.close();
    }
  });
});

describe('unknown routes', () => {
  it('answers 404 not_found as JSON', async () => {
    const response = await sandbox.call('GET', '/eu/nothing');
    expect(response).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});
