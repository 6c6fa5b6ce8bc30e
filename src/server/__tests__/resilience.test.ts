import type { FastifyReply } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BREAKER_THRESHOLD, MAX_ATTEMPTS } from '../upstream/resilience.ts';
import { CSRF, buildTestBff, signIn, type TestBff } from './support/bff.ts';
import {
  startFakeUpstream,
  vendorError,
  vendorPage,
  type FakeUpstream,
} from './support/fake-upstream.ts';

let fake: FakeUpstream;
let bff: TestBff;
let cookie: string;
/** Answers the fake gives next, in order; when empty it answers 200. */
let script: { status: number; retryAfter?: string }[] = [];

const record = {
  id: 'cmd_1',
  deviceId: 'BAT-1',
  powerControl: { targetBatteryPowerW: 1 },
  startTime: '2026-05-01T11:00:00Z',
  endTime: '2026-05-01T12:00:00Z',
  status: 'received',
  receivedAt: '2026-05-01T10:00:00Z',
};

function scripted(reply: FastifyReply, ok: () => unknown) {
  const next = script.shift();
  if (!next) return ok();
  if (next.retryAfter) reply.header('retry-after', next.retryAfter);
  return reply.code(next.status).send(vendorError('UNAVAILABLE', `scripted ${next.status}`));
}

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', (_request, reply) => scripted(reply, () => vendorPage('sites', [])));
  fake.on('GET', '/devices/BAT-1/commands/cmd_1', (_request, reply) =>
    scripted(reply, () => record),
  );
  fake.on('PUT', '/devices/BAT-1/commands/cmd_1/cancel', (_request, reply) =>
    scripted(reply, () => ({ message: 'Command cancelled', commandId: 'cmd_1' })),
  );
  fake.on('POST', '/device/BAT-1/commands', (_request, reply) =>
    scripted(reply, () =>
      reply.code(202).send({ id: 'cmd_1', message: 'ok', timestamp: record.receivedAt }),
    ),
  );
});
afterAll(() => fake.close());
beforeEach(async () => {
  script = [];
  fake.seen.length = 0;
  bff = await buildTestBff(fake);
  cookie = await signIn(bff.app);
  return () => bff.app.close();
});

const get = (url: string, who = cookie) =>
  bff.app.inject({ method: 'GET', url, headers: { cookie: who } });
const calls = (method: string, path: string) =>
  fake.seen.filter((s) => s.method === method && s.url.split('?')[0] === path).length;

describe('retries', () => {
  it('retries a GET after 503s and answers the eventual success', async () => {
    script = [{ status: 503 }, { status: 502 }];
    const response = await get('/api/sites');
    expect(response.statusCode).toBe(200);
    expect(calls('GET', '/sites')).toBe(3);
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts and answers the upstream's problem`, async () => {
    script = Array.from({ length: MAX_ATTEMPTS }, () => ({ status: 503 }));
    const response = await get('/api/sites');
    expect(response.statusCode).toBe(503);
    expect(response.json().code).toBe('upstream_error');
    expect(calls('GET', '/sites')).toBe(MAX_ATTEMPTS);
  });

  // Each try spends one of the device's calls (docs/decisions/007-device-call-budget.md): a
  // cancel, idempotent as it is, is sent once like a submission, and a 429 is never retried.
  it('never retries a device control call, a cancel included', async () => {
    script = [{ status: 503 }];
    const cancel = await bff.app.inject({
      method: 'PUT',
      url: '/api/devices/BAT-1/commands/cmd_1/cancel',
      headers: { cookie, ...CSRF },
    });
    expect(cancel.statusCode).toBe(503);
    expect(calls('PUT', '/devices/BAT-1/commands/cmd_1/cancel')).toBe(1);

    script = [{ status: 429, retryAfter: '0' }];
    const limited = await bff.app.inject({
      method: 'PUT',
      url: '/api/devices/BAT-1/commands/cmd_1/cancel',
      headers: { cookie, ...CSRF },
    });
    expect(limited.statusCode).toBe(429);
    expect(calls('PUT', '/devices/BAT-1/commands/cmd_1/cancel')).toBe(2);

    script = [{ status: 503 }];
    const submit = await bff.app.inject({
      method: 'POST',
      url: '/api/devices/BAT-1/commands',
      headers: { cookie, ...CSRF },
      payload: {
        powerControl: record.powerControl,
        startTime: record.startTime,
        endTime: record.endTime,
      },
    });
    expect(submit.statusCode).toBe(503);
    expect(calls('POST', '/device/BAT-1/commands')).toBe(1);
  });

  it('honours a short Retry-After, and hands a long one to the browser', async () => {
    script = [{ status: 429, retryAfter: '0' }];
    expect((await get('/api/sites')).statusCode).toBe(200);
    expect(calls('GET', '/sites')).toBe(2);

    fake.seen.length = 0;
    script = [{ status: 429, retryAfter: '120' }];
    const response = await get('/api/sites');
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('120');
    expect(calls('GET', '/sites')).toBe(1);
  });
});

describe('the circuit breaker', () => {
  it(`opens after ${BREAKER_THRESHOLD} consecutive failures and then fails fast`, async () => {
    script = Array.from({ length: BREAKER_THRESHOLD }, () => ({ status: 500 }));
    const failures: number[] = [];
    // Submissions are tried once each, so each counts as exactly one failure.
    for (let i = 0; i < BREAKER_THRESHOLD; i += 1) {
      const response = await bff.app.inject({
        method: 'POST',
        url: '/api/devices/BAT-1/commands',
        headers: { cookie, ...CSRF },
        payload: {
          powerControl: record.powerControl,
          startTime: record.startTime,
          endTime: record.endTime,
        },
      });
      failures.push(response.statusCode);
    }
    expect(failures).toEqual(Array.from({ length: BREAKER_THRESHOLD }, () => 500));
    const before = fake.seen.length;
    const fast = await get('/api/sites');
    expect(fast.statusCode).toBe(503);
    expect(fast.json().code).toBe('upstream_circuit_open');
    expect(fast.headers['retry-after']).toBeDefined();
    expect(fake.seen.length).toBe(before);
  });
});

describe('status coalescing', () => {
  it('serves identical concurrent status calls with one upstream request, reused for 1 s', async () => {
    const url = '/api/devices/BAT-1/commands/cmd_1';
    const responses = await Promise.all(Array.from({ length: 20 }, () => get(url)));
    expect(responses.map((r) => r.statusCode)).toEqual(responses.map(() => 200));
    expect(responses[0]?.json()).toEqual(record);
    expect(calls('GET', '/devices/BAT-1/commands/cmd_1')).toBe(1);

    bff.clock.nowMs += 999;
    await get(url);
    expect(calls('GET', '/devices/BAT-1/commands/cmd_1')).toBe(1);
    bff.clock.nowMs += 1;
    await get(url);
    expect(calls('GET', '/devices/BAT-1/commands/cmd_1')).toBe(2);
  });

  it('with statusReuseMs 0 still shares concurrent calls but reuses nothing afterwards', async () => {
    await bff.app.close();
    bff = await buildTestBff(fake, { statusReuseMs: 0 });
    cookie = await signIn(bff.app);
    const url = '/api/devices/BAT-1/commands/cmd_1';
    const responses = await Promise.all(Array.from({ length: 20 }, () => get(url)));
    expect(responses.map((r) => r.statusCode)).toEqual(responses.map(() => 200));
    expect(calls('GET', '/devices/BAT-1/commands/cmd_1')).toBe(1);
    await get(url);
    expect(calls('GET', '/devices/BAT-1/commands/cmd_1')).toBe(2);
  });

  it('does not reuse an error answer', async () => {
    script = [{ status: 404 }];
    const url = '/api/devices/BAT-1/commands/cmd_1';
    expect((await get(url)).statusCode).toBe(404);
    expect((await get(url)).statusCode).toBe(200);
  });
});
