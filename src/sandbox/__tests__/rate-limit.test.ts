import { beforeEach, describe, expect, it } from 'vitest';
import {
  BatchAcceptedSchema,
  BatchCancelAnswerSchema,
  EnvelopeSchema,
  HistoryPageSchema,
  RateLimitBodySchema,
  SubmissionAnswerSchema,
} from '../vendor/schemas.ts';
import {
  AU,
  EU,
  HOUR_MS,
  iso,
  startHarness,
  useSandboxHarness,
  WALL_MS,
  type HarnessResponse,
} from './support/sandbox-harness.ts';

/**
 * The vendor's rate limit, 2 requests per device per rolling minute of the sandbox clock, reads
 * and writes alike, a batch counting once per device (docs/upstream.md, Rate limit).
 */
const sandbox = useSandboxHarness();
let token: string;
beforeEach(async () => {
  token = await sandbox.boundToken('PLANT-EU-001');
});

const A = 'BAT-EU-001-A';
const B = 'BAT-EU-001-B';
const command = {
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: iso(WALL_MS + HOUR_MS),
  endTime: iso(WALL_MS + 2 * HOUR_MS),
};
const historyQuery = `startTime=${iso(WALL_MS)}&endTime=${iso(WALL_MS + 3 * HOUR_MS)}`;

const submit = (deviceId = A, asToken = token) =>
  sandbox.call('POST', `${EU}/device/${deviceId}/commands`, { token: asToken, json: command });
const status = (deviceId = A, commandId = 'cmd_none', asToken = token) =>
  sandbox.call('GET', `${EU}/devices/${deviceId}/commands/${commandId}`, { token: asToken });
const cancel = (deviceId = A, commandId = 'cmd_none') =>
  sandbox.call('PUT', `${EU}/devices/${deviceId}/commands/${commandId}/cancel`, { token });
const history = (deviceId = A) =>
  sandbox.call('GET', `${EU}/device/${deviceId}/commands?${historyQuery}`, { token });
const batch = (devices: string[]) =>
  sandbox.call('POST', `${EU}/devices/commands`, { token, json: { devices, command } });
const cancelBatch = (batchCommandId: string) =>
  sandbox.call('PUT', `${EU}/devices/commands/${batchCommandId}/cancel`, { token });
const setClock = (ms: number) => sandbox.admin('POST', '/clock', { now: iso(ms) });

/** Expects the rate limit's 429 for `deviceId`, with `Retry-After` of `retryAfterS`. */
function expectRateLimited(response: HarnessResponse, deviceId: string, retryAfterS: number) {
  expect(response.status, JSON.stringify(response.body)).toBe(429);
  const body = RateLimitBodySchema.strict().parse(response.body);
  expect(body.details).toEqual({ deviceId, limit: 2, windowSeconds: 60 });
  expect(response.headers).toMatchObject({
    'retry-after': String(retryAfterS),
    'x-ratelimit-limit': '2',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(retryAfterS),
  });
  return body;
}

describe('per device, reads and writes alike', () => {
  it('allows 2 requests and refuses the third with 429 RATE_LIMIT_EXCEEDED, its details and headers', async () => {
    const accepted = SubmissionAnswerSchema.parse((await submit()).body);
    expect((await status(A, accepted.id)).status).toBe(200);
    const refused = await status(A, accepted.id);
    const body = expectRateLimited(refused, A, 60);
    expect(body).toEqual({
      code: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringContaining('2 requests per minute per device'),
      details: { deviceId: A, limit: 2, windowSeconds: 60 },
      timestamp: iso(WALL_MS),
    });
    expect(body.message).toContain(A);
  });

  it.each([
    ['submit', () => submit()],
    ['status', () => status()],
    ['cancel', () => cancel()],
    ['history', () => history()],
  ])('counts %s against the same device as any other call', async (_what, third) => {
    expect((await history()).status).toBe(200);
    expect((await status()).status).toBe(404);
    expectRateLimited(await third(), A, 60);
  });

  it('rolls: each call holds a slot for 60 s of the sandbox clock, a refused call holds none', async () => {
    expect((await history()).status).toBe(200);
    await setClock(WALL_MS + 30_000);
    expect((await history()).status).toBe(200);
    await setClock(WALL_MS + 45_000);
    expectRateLimited(await history(), A, 15);
    await setClock(WALL_MS + 59_999);
    expectRateLimited(await history(), A, 1);
    await setClock(WALL_MS + 60_000);
    expect((await history()).status).toBe(200);
    // The slot of the call at 30 s is held until 90 s, the one just taken until 120 s.
    expectRateLimited(await history(), A, 30);
    await setClock(WALL_MS + 90_000);
    expect((await history()).status).toBe(200);
  });

  it('counts per device, whoever calls; other devices and regions keep their own', async () => {
    const second = await sandbox.token();
    expect((await history()).status).toBe(200);
    expect((await status(A, 'cmd_none', second)).status).toBe(404);
    expectRateLimited(await submit(A, second), A, 60);
    expect((await submit(B)).status).toBe(202);
    const au = await sandbox.boundToken('PLANT-AU-001', 'demo-au');
    for (let i = 0; i < 2; i += 1)
      expect(
        (
          await sandbox.call('GET', `${AU}/device/BAT-AU-001-A/commands?${historyQuery}`, {
            token: au,
          })
        ).status,
      ).toBe(200);
  });

  it('spends nothing on a device not found or not yours, nor on site and device reads', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await status('BAT-EU-002-A')).status).toBe(404);
      expect((await sandbox.call('GET', `${EU}/sites`, { token })).status).toBe(200);
      expect((await sandbox.call('GET', `${EU}/sites/PLANT-EU-001`, { token })).status).toBe(200);
      expect((await sandbox.call('GET', `${EU}/devices`, { token })).status).toBe(200);
      expect((await sandbox.call('GET', `${EU}/devices/${A}`, { token })).status).toBe(200);
    }
    await sandbox.call('POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-002' } });
    expect((await history('BAT-EU-002-A')).status).toBe(200);
    expect((await history(A)).status).toBe(200);
    expect((await history(A)).status).toBe(200);
  });

  it('refuses in the envelope dialect like any other error, headers kept', async () => {
    await sandbox.admin('PUT', '/dialect', { envelope: true });
    await history();
    await history();
    const refused = await history();
    expect(refused.status).toBe(429);
    expect(EnvelopeSchema.parse(refused.body)).toEqual({
      code: 429,
      msg: expect.stringContaining('Rate limit exceeded'),
      data: null,
    });
    expect(refused.headers).toMatchObject({ 'retry-after': '60', 'x-ratelimit-remaining': '0' });
  });
});

describe('batches count once per device', () => {
  it('leaves a device over the limit out of the batch and names it in the answer', async () => {
    await history(A);
    await history(A);
    const response = await batch([A, B]);
    expect(response.status).toBe(202);
    const accepted = BatchAcceptedSchema.parse(response.body);
    expect(accepted.message).toContain('received for 1 devices');
    expect(accepted.message).toContain(`over the rate limit: ${A}`);
    expect(accepted.message).toContain('retry after 60 s');
    expect(HistoryPageSchema.parse((await history(B)).body).total).toBe(1);
    // B: the batch and the history read so far; a minute on, A's history and the cancel.
    await sandbox.nextMinute();
    expect(HistoryPageSchema.parse((await history(A)).body).total).toBe(0);
    const cancelled = BatchCancelAnswerSchema.parse(
      (await cancelBatch(accepted.batchCommandId)).body,
    );
    expect(cancelled.results.map((result) => [result.deviceId, result.status])).toEqual([
      [B, 'cancelled'],
    ]);
  });

  it('refuses the whole batch with 429 when every device is over, naming the one that frees last', async () => {
    await history(A);
    await history(A);
    await setClock(WALL_MS + 10_000);
    await history(B);
    await history(B);
    await setClock(WALL_MS + 20_000);
    const body = expectRateLimited(await batch([A, B]), B, 50);
    expect(body.message).toContain(`${B}, ${A}`);
    await setClock(WALL_MS + 70_000);
    expect((await batch([A, B])).status).toBe(202);
  });

  it('spends one slot per device of the batch: a third call about each is refused', async () => {
    const accepted = BatchAcceptedSchema.parse((await batch([A, B])).body);
    expect((await history(A)).status).toBe(200);
    expect((await cancelBatch(accepted.batchCommandId)).status).toBe(200);
    expectRateLimited(await history(A), A, 60);
    expectRateLimited(await history(B), B, 60);
  });

  it('fails a device over the limit in a batch cancel, saying why; 429 when every device is over', async () => {
    const accepted = BatchAcceptedSchema.parse((await batch([A, B])).body);
    await history(A);
    const first = BatchCancelAnswerSchema.parse((await cancelBatch(accepted.batchCommandId)).body);
    expect(first.results.map((result) => [result.deviceId, result.status])).toEqual([
      [A, 'failed'],
      [B, 'cancelled'],
    ]);
    expect(first.results[0]?.message).toContain('rate limit');
    expect(first.message).toContain('1 of 2');
    // B has spent its two (batch, cancel); A its two and a refusal.
    expectRateLimited(await cancelBatch(accepted.batchCommandId), A, 60);
    await sandbox.nextMinute();
    const second = BatchCancelAnswerSchema.parse((await cancelBatch(accepted.batchCommandId)).body);
    expect(second.results.map((result) => result.status)).toEqual(['cancelled', 'failed']);
  });
});

describe('the limit through the admin API and the start option', () => {
  it('reads and sets the limit; a lower one applies at once, 0 turns it off, reset restores it', async () => {
    expect((await sandbox.admin('GET', '/rate-limit')).body).toEqual({
      perDevicePerMinute: 2,
      windowSeconds: 60,
    });
    await history();
    await history();
    expect((await sandbox.admin('PUT', '/rate-limit', { perDevicePerMinute: 3 })).body).toEqual({
      perDevicePerMinute: 3,
      windowSeconds: 60,
    });
    expect((await history()).status).toBe(200);
    expect((await history()).status).toBe(429);
    await sandbox.admin('PUT', '/rate-limit', { perDevicePerMinute: 1 });
    await sandbox.nextMinute();
    expect((await history()).status).toBe(200);
    const refused = await history();
    expect(refused.headers).toMatchObject({ 'x-ratelimit-limit': '1' });
    expect(RateLimitBodySchema.parse(refused.body).details.limit).toBe(1);
    await sandbox.admin('PUT', '/rate-limit', { perDevicePerMinute: 0 });
    for (let i = 0; i < 5; i += 1) expect((await history()).status).toBe(200);
    await sandbox.admin('POST', '/reset');
    expect((await sandbox.admin('GET', '/rate-limit')).body).toMatchObject({
      perDevicePerMinute: 2,
    });
  });

  it.each([{}, { perDevicePerMinute: -1 }, { perDevicePerMinute: 1.5 }, { other: 1 }])(
    'refuses the setting %j with 400',
    async (body) => {
      expect((await sandbox.admin('PUT', '/rate-limit', body)).status).toBe(400);
    },
  );

  it('starts with the limit it is built with, and resets to it', async () => {
    const off = await startHarness({ deviceRateLimitPerMinute: 0 });
    try {
      const offToken = await off.boundToken('PLANT-EU-001');
      const read = () =>
        off.call('GET', `${EU}/device/${A}/commands?${historyQuery}`, { token: offToken });
      for (let i = 0; i < 3; i += 1) expect((await read()).status).toBe(200);
      await off.admin('POST', '/reset');
      expect((await off.admin('GET', '/rate-limit')).body).toMatchObject({ perDevicePerMinute: 0 });
    } finally {
      await off.close();
    }
  });

  it('counts calls and refusals per device in the stats; DELETE zeroes them', async () => {
    await history(A);
    await history(A);
    await history(A);
    await batch([A, B]);
    expect((await sandbox.admin('GET', '/stats')).body).toMatchObject({
      byDevice: {
        [`eu ${A}`]: { calls: 4, refused: 2 },
        [`eu ${B}`]: { calls: 1, refused: 0 },
      },
    });
    expect((await sandbox.admin('DELETE', '/stats')).body).toMatchObject({ byDevice: {} });
  });
});
