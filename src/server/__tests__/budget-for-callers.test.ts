/**
 * What the API tells a script about a device's budget of upstream calls
 * (docs/decisions/007-device-call-budget.md, section 1; docs/automation.md): every answer about a
 * device to an API token carries `Powerdeck-Next-Call-At`; a change asks to be refused rather than
 * queued with `ifLater=refuse`; the same `Idempotency-Key` gets the first answer. The test moves
 * the upstream clock, never sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiTokenMadeSchema } from '#domain/api-tokens.ts';
import { QueuedAnswerSchema } from '#domain/queued-change.ts';
import { CSRF, buildTestBff, fileDatabase, signIn, type TestBff } from './support/bff.ts';
import {
  startFakeUpstream,
  vendorPage,
  vendorSite,
  type FakeUpstream,
} from './support/fake-upstream.ts';

const database = fileDatabase();
const T0 = Date.parse('2026-05-01T10:00:00Z');
const MINUTE = 60_000;
const command = (watts: number, startMin: number) => ({
  powerControl: { targetBatteryPowerW: watts },
  startTime: new Date(T0 + startMin * MINUTE).toISOString(),
  endTime: new Date(T0 + (startMin + 30) * MINUTE).toISOString(),
});

let fake: FakeUpstream;
let bff: TestBff;
let secret: string;
let serial = 0;

const submissions = () =>
  fake.seen.filter((s) => s.method === 'POST' && s.url.endsWith('/device/BAT-1/commands'));

function send(body: object, options: { key?: string; query?: string } = {}) {
  return bff.app.inject({
    method: 'POST',
    url: `/api/devices/BAT-1/commands${options.query ?? ''}`,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(options.key ? { 'idempotency-key': options.key } : {}),
    },
    payload: body,
  });
}

function history() {
  const range = `startTime=${new Date(T0).toISOString()}&endTime=${new Date(T0 + 24 * 60 * MINUTE).toISOString()}`;
  return bff.app.inject({
    method: 'GET',
    url: `/api/devices/BAT-1/commands?${range}`,
    headers: { authorization: `Bearer ${secret}` },
  });
}

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', () => vendorPage('sites', [vendorSite('SITE-1', ['BAT-1'])]));
  fake.on('POST', '/device/BAT-1/commands', (_request, reply) =>
    reply
      .code(202)
      .send({ id: `cmd_${++serial}`, message: 'accepted', timestamp: '2026-05-01T10:00:00Z' }),
  );
  bff = await buildTestBff(fake, {
    database: database.handle,
    deviceCallsPerMinute: { eu: 2, au: 2 },
  });
  bff.clock.nowMs = T0;
  const cookie = await signIn(bff.app, { operatorName: 'Ada' });
  const made = await bff.app.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: { cookie, ...CSRF },
    payload: { name: 'trading desk', role: 'dispatcher', expiresInDays: 30 },
  });
  expect(made.statusCode, made.body).toBe(201);
  secret = ApiTokenMadeSchema.parse(made.json()).secret;
});

afterAll(async () => {
  await bff?.app.close();
  await fake?.close();
});

describe('the budget as a script sees it', () => {
  it("says the device's next free call on every answer about it, refuses or queues as asked, and answers a retried key once", async () => {
    const before = await history();
    expect(before.statusCode, before.body).toBe(200);
    expect(before.headers['powerdeck-next-call-at']).toBe(new Date(T0).toISOString());

    const first = await send(command(1, 60), { key: 'desk-1' });
    expect(first.statusCode, first.body).toBe(202);
    const second = await send(command(2, 120), { key: 'desk-2' });
    expect(second.statusCode, second.body).toBe(202);
    // Both calls spent: the next frees a window after the first was answered.
    const nextCallAt = second.headers['powerdeck-next-call-at'];
    expect(nextCallAt).toBe(new Date(T0 + MINUTE).toISOString());
    expect((await history()).headers['powerdeck-next-call-at']).toBe(nextCallAt);

    // The same key again: the first answer, not a second command.
    const retried = await send(command(1, 60), { key: 'desk-1' });
    expect(retried.statusCode).toBe(202);
    expect(retried.json()).toEqual(first.json());
    expect(submissions()).toHaveLength(2);

    const refused = await send(command(3, 180), { key: 'desk-3', query: '?ifLater=refuse' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'change_would_wait',
      details: { goesAt: nextCallAt },
    });
    expect(refused.headers['powerdeck-next-call-at']).toBe(nextCallAt);

    const queued = await send(command(3, 180), { key: 'desk-4' });
    expect(queued.statusCode, queued.body).toBe(202);
    expect(QueuedAnswerSchema.parse(queued.json()).queued.goesAt).toBe(nextCallAt);
    expect(submissions()).toHaveLength(2);

    bff.clock.nowMs = T0 + MINUTE + 1_000;
    const later = await history();
    expect(later.headers['powerdeck-next-call-at']).toBe(
      new Date(T0 + MINUTE + 1_000).toISOString(),
    );
  });
});
