/**
 * BFF + sandbox over real HTTP on 127.0.0.1: sign-in, CSRF, allowlist,
 * token renewal, a full command lifecycle on the sandbox clock, sign-out.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProblemSchema } from '#domain/errors.ts';
import { SessionInfoSchema } from '#domain/session.ts';
import { StatusRecordSchema, SubmissionResponseSchema } from '#domain/command.ts';
import { SiteListSchema } from '#domain/device.ts';
import { BatchSubmissionResponseSchema } from '#domain/batch.ts';
import { HistoryResponseSchema } from '#domain/history.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
let stack: Stack;
const bffClock = { offsetMs: 0 };

beforeAll(async () => {
  // The read model plans its reads on the sandbox's clock; the test runs them after moving it.
  stack = await startStack({
    followSandboxClock: true,
    bff: { testing: { now: () => Date.now() + bffClock.offsetMs, readModelTickMs: 0 } },
  });
});
afterAll(() => stack.close());
beforeEach(async () => {
  await stack.admin.reset();
  // The sandbox forgot every command and its clock went back: so does the BFF.
  await stack.forgetUpstream();
  bffClock.offsetMs = 0;
});

/** The read model reads the devices due on the sandbox clock now. */
const runReads = async () => stack.bff.readModel.reads.runDue();

/** Vendor requests the sandbox has seen so far (token requests apart). */
const upstreamRequests = async () => (await stack.admin.stats()).requests as number;
const tokenRequests = async () => (await stack.admin.stats()).tokenRequests as number;

async function signedIn(): Promise<BrowserClient> {
  const browser = stack.browser();
  const response = await browser.signIn(DEMO_EU);
  expect(response.status).toBe(200);
  return browser;
}

describe('sign-in', () => {
  it('signs in with the demo client and sets the session cookie only', async () => {
    const browser = stack.browser();
    const response = await browser.signIn(DEMO_EU);
    expect(response.status).toBe(200);
    expect(SessionInfoSchema.parse(response.json())).toMatchObject({
      region: 'eu',
      clientId: 'demo-eu',
    });
    expect(response.text).not.toContain(DEMO_EU.clientSecret);
    const setCookie = response.headers['set-cookie'] ?? [];
    expect(setCookie).toHaveLength(1);
    expect(setCookie[0]).toMatch(/^powerdeck_session=[A-Za-z0-9_-]{43}; /);
    expect(setCookie[0]).toContain('HttpOnly');
    expect(setCookie[0]).toContain('SameSite=Strict');
    expect(setCookie[0]).toContain('Path=/');
    const who = await browser.get('/api/session');
    expect(who.json()).toMatchObject({ clientId: 'demo-eu' });
  });

  it('refuses a wrong secret and an unknown client alike, without a cookie', async () => {
    const wrong = await stack.browser().signIn({ ...DEMO_EU, clientSecret: 'not-the-secret' });
    const unknown = await stack.browser().signIn({ ...DEMO_EU, clientId: 'nobody' });
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(ProblemSchema.parse(response.json()).code).toBe('invalid_credentials');
    }
    expect(wrong.text).toBe(unknown.text);
  });
});

describe('CSRF', () => {
  it('refuses a state change without X-CSRF or from a foreign Origin; nothing reaches the upstream', async () => {
    const browser = await signedIn();
    const before = await upstreamRequests();
    const missing = await browser.request({
      method: 'POST',
      path: '/api/sites',
      json: { siteId: 'PLANT-EU-001' },
      csrf: false,
      headers: { origin: stack.bffUrl },
    });
    const foreign = await browser.request({
      method: 'POST',
      path: '/api/sites',
      json: { siteId: 'PLANT-EU-001' },
      csrf: false,
      headers: { 'x-csrf': '1', origin: 'http://evil.example' },
    });
    for (const response of [missing, foreign]) {
      expect(response.status).toBe(403);
      expect(response.json()).toMatchObject({ code: 'csrf' });
    }
    expect(await upstreamRequests()).toBe(before);
  });
});

describe('the allowlist', () => {
  it.each([
    ['GET', '/api/devices/..%2F..%2Fsites', 400],
    ['GET', '/api/devices/%2e%2e/commands/x', 400],
    ['GET', '/api/devices/BAT-EU-001-A/commands/../../../sites', 400],
    ['GET', '/api/_sandbox/stats', 404],
    ['GET', '/api/eu/sites', 404],
    ['POST', '/api/_sandbox/reset', 404],
    ['PATCH', '/api/sites', 405],
    ['TRACE', '/api/sites', 405],
    ['DELETE', '/api/devices/BAT-EU-001-A/commands/cmd_1', 405],
    ['GET', '/api/devices/BAT EU/commands/cmd_1', 400],
  ])('%s %s -> %i, and the upstream sees nothing', async (method, path, status) => {
    const browser = await signedIn();
    const before = await upstreamRequests();
    const response = await browser.request({ method, path: path.replace(' ', '%20') });
    expect(response.status).toBe(status);
    if (method !== 'TRACE')
      expect(response.headers['content-type']).toContain('application/problem+json');
    expect(await upstreamRequests()).toBe(before);
  });
});

describe('the token', () => {
  it('is renewed before its short lifetime runs out, and after the upstream refuses it', async () => {
    await stack.admin.setFaults({ tokenTtlS: 10 });
    const browser = await signedIn();
    expect(await tokenRequests()).toBe(1);
    expect((await browser.get('/api/sites')).status).toBe(200);
    expect(await tokenRequests()).toBe(1);

    // Both clocks move past the lifetime: the BFF renews before calling.
    bffClock.offsetMs += 10_000;
    await stack.admin.advanceClock(10_000);
    expect((await browser.get('/api/sites')).status).toBe(200);
    expect(await tokenRequests()).toBe(2);

    // Only the upstream's clock moves: the upstream refuses the token, the BFF renews and retries.
    await stack.admin.advanceClock(10_000);
    expect((await browser.get('/api/sites')).status).toBe(200);
    expect(await tokenRequests()).toBe(3);
  });
});

describe('a command on the sandbox clock', () => {
  it('binds, submits, goes received -> executing -> completed, and a late cancel is a conflict', async () => {
    const browser = await signedIn();
    const unknownSite = await browser.post('/api/sites', { siteId: 'PLANT-NOPE' });
    expect(unknownSite.status).toBeGreaterThanOrEqual(400);
    expect(ProblemSchema.parse(unknownSite.json()).detail).toContain('PLANT-NOPE');

    const bind = await browser.post('/api/sites', { siteId: 'PLANT-EU-001' });
    expect(bind.status).toBe(201);
    const sites = SiteListSchema.parse((await browser.get('/api/sites')).json());
    expect(sites.sites.map((s) => s.siteId)).toEqual(['PLANT-EU-001']);

    const nowMs = await stack.admin.nowMs();
    const startMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
    const command = {
      powerControl: { targetBatteryPowerW: -3000, chargeCutoffSocPercent: 90 },
      startTime: new Date(startMs).toISOString(),
      endTime: new Date(startMs + 30 * MINUTE_MS).toISOString(),
    };
    const submitted = await browser.post('/api/devices/BAT-EU-001-A/commands', command);
    expect(submitted.status).toBe(202);
    const { id } = SubmissionResponseSchema.parse(submitted.json());

    const statusPath = `/api/devices/BAT-EU-001-A/commands/${id}`;
    const status = async () => StatusRecordSchema.parse((await browser.get(statusPath)).json());
    expect((await status()).status).toBe('received');
    // The read model reads the device just after the moments its command changes state.
    const moveClocks = async (to: number) => {
      await stack.admin.setClock(new Date(to + 10_000));
      bffClock.offsetMs += 1_000;
      await runReads();
    };
    await moveClocks(startMs);
    expect((await status()).status).toBe('executing');
    await moveClocks(startMs + 30 * MINUTE_MS);
    const completed = await status();
    expect(completed.status).toBe('completed');
    expect(completed.completedAt).toBeDefined();

    const overlap = await browser.post('/api/devices/BAT-EU-001-A/commands', {
      ...command,
      startTime: new Date(startMs + 40 * MINUTE_MS).toISOString(),
      endTime: new Date(startMs + 50 * MINUTE_MS).toISOString(),
    });
    expect(overlap.status).toBe(202);
    // The read that saw the command complete and that submission spent this minute's two calls
    // of the device: the late cancel goes in the next one.
    await stack.admin.advanceClock(MINUTE_MS);
    const conflict = await browser.request({ method: 'PUT', path: `${statusPath}/cancel` });
    expect(conflict.status).toBe(409);
    expect(conflict.headers['content-type']).toContain('application/problem+json');
    const problem = ProblemSchema.parse(conflict.json());
    expect(problem).toMatchObject({ status: 409, code: 'not_cancellable' });
    expect(problem.detail).toBeTruthy();
    expect(problem.upstream).toMatchObject({ errorCode: expect.any(String) });

    const history = await browser.get(
      `/api/devices/BAT-EU-001-A/commands?startTime=${new Date(startMs - MINUTE_MS).toISOString()}&endTime=${new Date(startMs + 60 * MINUTE_MS).toISOString()}`,
    );
    expect(history.status).toBe(200);
    expect((history.json() as { commands: unknown[] }).commands).toHaveLength(2);
  });

  it('cancels a received command', async () => {
    const browser = await signedIn();
    await browser.post('/api/sites', { siteId: 'PLANT-EU-001' });
    // Binding reads each device's history at once (the read model's backfill), one of its two
    // calls a minute: the submission and the cancel go in the next minute, as they would then.
    await runReads();
    await stack.admin.advanceClock(MINUTE_MS);
    const nowMs = await stack.admin.nowMs();
    const submitted = await browser.post('/api/devices/BAT-EU-001-B/commands', {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(nowMs + 10 * MINUTE_MS).toISOString(),
      endTime: new Date(nowMs + 20 * MINUTE_MS).toISOString(),
    });
    const { id } = SubmissionResponseSchema.parse(submitted.json());
    const cancel = await browser.put(`/api/devices/BAT-EU-001-B/commands/${id}/cancel`);
    expect(cancel.status).toBe(200);
    const record = StatusRecordSchema.parse(
      (await browser.get(`/api/devices/BAT-EU-001-B/commands/${id}`)).json(),
    );
    expect(record).toMatchObject({ status: 'cancelled', cancelReason: 'manuallyCancel' });
  });
});

describe('an unbound site', () => {
  it('answers nothing of its devices at once: a command the read model knows is not found, as its history is; bound again, it is answered', async () => {
    const browser = await signedIn();
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
    await runReads();
    await stack.admin.advanceClock(MINUTE_MS);
    const nowMs = await stack.admin.nowMs();
    const submitted = await browser.post('/api/devices/BAT-EU-001-B/commands', {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(nowMs + 10 * MINUTE_MS).toISOString(),
      endTime: new Date(nowMs + 20 * MINUTE_MS).toISOString(),
    });
    expect(submitted.status).toBe(202);
    const { id } = SubmissionResponseSchema.parse(submitted.json());
    const statusPath = `/api/devices/BAT-EU-001-B/commands/${id}`;
    // The read model knows the command (and the poll keeps it in memory).
    expect((await browser.get(statusPath)).status).toBe(200);

    expect((await browser.delete('/api/sites/PLANT-EU-001')).status).toBe(204);

    const status = await browser.get(statusPath);
    const history = await browser.get(
      `/api/devices/BAT-EU-001-B/commands?startTime=${new Date(nowMs).toISOString()}&endTime=${new Date(nowMs + 30 * MINUTE_MS).toISOString()}`,
    );
    for (const answer of [status, history]) {
      expect(answer.status).toBe(404);
      expect(ProblemSchema.parse(answer.json())).toMatchObject({ code: 'unknown_or_unbound' });
    }
    expect(status.text).not.toContain(id);

    // Bound again, its devices are the client's again: the poll answers at once.
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
    expect(StatusRecordSchema.parse((await browser.get(statusPath)).json()).id).toBe(id);
  });
});

describe('batches and the ledger', () => {
  it('records a batch and its cancel, and finds them by batch and by site', async () => {
    const browser = stack.browser();
    await browser.signIn({ ...DEMO_EU, operatorName: 'Grace' });
    await browser.post('/api/sites', { siteId: 'PLANT-EU-001' });
    // The backfill of the bound site spent one call of each device: the batch and its cancel go
    // in the next minute.
    await runReads();
    await stack.admin.advanceClock(MINUTE_MS);
    const nowMs = await stack.admin.nowMs();
    const batch = await browser.post('/api/batches', {
      devices: ['BAT-EU-001-A', 'BAT-EU-001-B'],
      command: {
        powerControl: { dischargeCutoffSocPercent: 20 },
        startTime: new Date(nowMs + 10 * MINUTE_MS).toISOString(),
        endTime: new Date(nowMs + 20 * MINUTE_MS).toISOString(),
      },
    });
    expect(batch.status).toBe(202);
    const { batchCommandId } = BatchSubmissionResponseSchema.parse(batch.json());
    const cancel = await browser.put(`/api/batches/${batchCommandId}/cancel`);
    expect(cancel.status).toBe(200);
    // The read model finds each device's command in its first read after the batch, once the
    // batch and its cancel left the devices a call (a minute on).
    await stack.admin.advanceClock(MINUTE_MS);
    await runReads();

    const byBatch = LedgerPageSchema.parse(
      (await browser.get(`/api/ledger?batchCommandId=${batchCommandId}`)).json(),
    ).entries;
    expect(byBatch.map((e) => [e.kind, e.state, e.operatorName])).toEqual([
      ['batchCancel', 'succeeded', 'Grace'],
      ['batch', 'succeeded', 'Grace'],
    ]);
    // The vendor's answer names no command: the read model found each device's in its history.
    expect(byBatch[1]?.outcome?.confirmation).toBe('confirmed');
    expect(byBatch[1]?.outcome?.commands?.map((c) => c.deviceId).sort()).toEqual([
      'BAT-EU-001-A',
      'BAT-EU-001-B',
    ]);
    expect(byBatch[0]?.outcome?.results).toHaveLength(2);
    // Both devices are in PLANT-EU-001: the batch and its cancel carry its site and zone.
    for (const entry of byBatch)
      expect(entry).toMatchObject({ siteId: 'PLANT-EU-001', timeZone: 'Europe/Berlin' });
    // The history names the batch of each command the ledger found.
    const history = HistoryResponseSchema.parse(
      (
        await browser.get(
          `/api/devices/BAT-EU-001-A/commands?startTime=${new Date(nowMs).toISOString()}&endTime=${new Date(nowMs + 30 * MINUTE_MS).toISOString()}`,
        )
      ).json(),
    );
    expect(history.commands.map((c) => c.batchCommandId)).toEqual([batchCommandId]);
    const bySite = LedgerPageSchema.parse(
      (await browser.get('/api/ledger?siteId=PLANT-EU-001&kind=batch')).json(),
    ).entries;
    expect(bySite.map((e) => e.batchCommandId)).toEqual([batchCommandId]);
  });
});

describe('a batch the vendor refuses for a device it does not know', () => {
  it('names each device to remove, in words and in details', async () => {
    const browser = await signedIn();
    await browser.post('/api/sites', { siteId: 'PLANT-EU-001' });
    const nowMs = await stack.admin.nowMs();
    const refused = await browser.post('/api/batches', {
      devices: ['BAT-EU-001-A', 'BAT-XX-998', 'BAT-XX-999'],
      command: {
        powerControl: { dischargeCutoffSocPercent: 20 },
        startTime: new Date(nowMs + 10 * MINUTE_MS).toISOString(),
        endTime: new Date(nowMs + 20 * MINUTE_MS).toISOString(),
      },
    });
    expect(refused.status).toBe(404);
    const problem = ProblemSchema.parse(refused.json());
    expect(problem.code).toBe('unknown_or_unbound');
    expect(problem.details).toEqual({ deviceIds: ['BAT-XX-998', 'BAT-XX-999'] });
    expect(problem.detail).toContain('BAT-XX-998, BAT-XX-999');
    expect(problem.detail).not.toContain('BAT-EU-001-A');
  });
});

describe('sign-out', () => {
  it('destroys the session: the old cookie no longer works', async () => {
    const browser = await signedIn();
    const cookie = browser.cookies.get('powerdeck_session');
    const out = await browser.delete('/api/session');
    expect(out.status).toBe(204);
    expect(browser.cookies.size).toBe(0);
    const replayed = stack.browser();
    replayed.cookies.set('powerdeck_session', cookie ?? '');
    const after = await replayed.get('/api/sites');
    expect(after.status).toBe(401);
    expect(after.json()).toMatchObject({ code: 'not_signed_in' });
  });
});
