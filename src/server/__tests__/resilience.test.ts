import type { FastifyReply } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BREAKER_THRESHOLD, MAX_ATTEMPTS } from '../upstream/resilience.ts';
import { buildTestBff, fileDatabase, sendSignedIn, signIn, type TestBff } from './support/bff.ts';
import {
  startFakeUpstream,
  vendorError,
  vendorPage,
  type FakeUpstream,
} from './support/fake-upstream.ts';

const database = fileDatabase();

let fake: FakeUpstream;
let bff: TestBff;
let cookie: string;
/**
 * Answers the fake gives next on each path, in order; when none is left it answers 200. Per path:
 * with a database the BFF also reads the site list and histories on its own (the ledger's site
 * lookup, the read model), which must not take an answer scripted for another call.
 */
const scripts = new Map<string, { status: number; retryAfter?: string }[]>();
const script = (path: string, answers: { status: number; retryAfter?: string }[]) =>
  void scripts.set(path, answers);

const record = {
  id: 'cmd_1',
  deviceId: 'BAT-1',
  powerControl: { targetBatteryPowerW: 1 },
  startTime: '2026-05-01T11:00:00Z',
  endTime: '2026-05-01T12:00:00Z',
  status: 'received',
  receivedAt: '2026-05-01T10:00:00Z',
};

function scripted(path: string, reply: FastifyReply, ok: () => unknown) {
  const next = scripts.get(path)?.shift();
  if (!next) return ok();
  if (next.retryAfter) reply.header('retry-after', next.retryAfter);
  return reply.code(next.status).send(vendorError('UNAVAILABLE', `scripted ${next.status}`));
}

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', (_request, reply) =>
    scripted('/sites', reply, () => vendorPage('sites', [])),
  );
  fake.on('PUT', '/devices/BAT-1/commands/cmd_1/cancel', (_request, reply) =>
    scripted('cancel', reply, () => ({ message: 'Command cancelled', commandId: 'cmd_1' })),
  );
  fake.on('POST', '/device/BAT-1/commands', (_request, reply) =>
    scripted('submit', reply, () =>
      reply.code(202).send({ id: 'cmd_1', message: 'ok', timestamp: record.receivedAt }),
    ),
  );
});
afterAll(() => fake.close());
beforeEach(async () => {
  scripts.clear();
  fake.seen.length = 0;
  bff = await buildTestBff(fake, { database: database.handle });
  // The file's tests share a database: each meets devices with nothing queued or spent.
  await bff.app.forgetUpstream();
  cookie = await signIn(bff.app);
  return () => bff.app.close();
});

const get = (url: string, who = cookie) =>
  bff.app.inject({ method: 'GET', url, headers: { cookie: who } });
const send = (method: 'POST' | 'PUT', url: string, payload?: object) =>
  sendSignedIn(bff.app, cookie, method, url, payload);
const calls = (method: string, path: string) =>
  fake.seen.filter((s) => s.method === method && s.url.split('?')[0] === path).length;

describe('retries', () => {
  it('retries a GET after 503s and answers the eventual success', async () => {
    script('/sites', [{ status: 503 }, { status: 502 }]);
    const response = await get('/api/sites');
    expect(response.statusCode).toBe(200);
    expect(calls('GET', '/sites')).toBe(3);
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts and answers the upstream's problem`, async () => {
    script(
      '/sites',
      Array.from({ length: MAX_ATTEMPTS }, () => ({ status: 503 })),
    );
    const response = await get('/api/sites');
    expect(response.statusCode).toBe(503);
    expect(response.json().code).toBe('upstream_error');
    expect(calls('GET', '/sites')).toBe(MAX_ATTEMPTS);
  });

  // Each try spends one of the device's calls (docs/decisions/007-device-call-budget.md): a
  // cancel, idempotent as it is, is sent once like a submission, and a 429 is never retried.
  it('never retries a device control call, a cancel included', async () => {
    script('cancel', [{ status: 503 }]);
    const cancel = await send('PUT', '/api/devices/BAT-1/commands/cmd_1/cancel');
    expect(cancel.statusCode).toBe(503);
    expect(calls('PUT', '/devices/BAT-1/commands/cmd_1/cancel')).toBe(1);

    script('cancel', [{ status: 429, retryAfter: '0' }]);
    const limited = await send('PUT', '/api/devices/BAT-1/commands/cmd_1/cancel');
    // The vendor's limit puts the cancel in the queue of changes, never into a retry.
    expect(limited.statusCode).toBe(202);
    expect(calls('PUT', '/devices/BAT-1/commands/cmd_1/cancel')).toBe(2);

    // The queued cancel would hold a submission of its device back: it goes first.
    await bff.app.forgetUpstream();
    script('submit', [{ status: 503 }]);
    const submit = await send('POST', '/api/devices/BAT-1/commands', {
      powerControl: record.powerControl,
      startTime: record.startTime,
      endTime: record.endTime,
    });
    expect(submit.statusCode).toBe(503);
    expect(calls('POST', '/device/BAT-1/commands')).toBe(1);
  });

  it('honours a short Retry-After, and hands a long one to the browser', async () => {
    script('/sites', [{ status: 429, retryAfter: '0' }]);
    expect((await get('/api/sites')).statusCode).toBe(200);
    expect(calls('GET', '/sites')).toBe(2);

    fake.seen.length = 0;
    script('/sites', [{ status: 429, retryAfter: '120' }]);
    const response = await get('/api/sites');
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('120');
    expect(calls('GET', '/sites')).toBe(1);
  });
});

describe('the circuit breaker', () => {
  it(`opens after ${BREAKER_THRESHOLD} consecutive failures and then fails fast`, async () => {
    script(
      'submit',
      Array.from({ length: BREAKER_THRESHOLD }, () => ({ status: 500 })),
    );
    const failures: number[] = [];
    // Submissions are tried once each, so each counts as exactly one failure; each has a window
    // of its own (another day than the other tests'), as the ledger holds back a second change of
    // a window whose outcome is unknown.
    for (let i = 0; i < BREAKER_THRESHOLD; i += 1) {
      const response = await send('POST', '/api/devices/BAT-1/commands', {
        powerControl: record.powerControl,
        startTime: `2026-05-02T${11 + i}:00:00Z`,
        endTime: `2026-05-02T${12 + i}:00:00Z`,
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
