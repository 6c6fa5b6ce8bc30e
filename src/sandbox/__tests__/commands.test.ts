import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  StatusRecordSchema,
  SubmissionResponseSchema,
  type StatusRecord,
} from '../../domain/command.ts';
import { WindowOverlapDetailsSchema } from '../../domain/errors.ts';
import { HistoryResponseSchema } from '../../domain/history.ts';
import type { PowerControl } from '../../domain/power-control.ts';
import {
  HOUR_MS,
  iso,
  MINUTE_MS,
  startHarness,
  type SandboxHarness,
} from './support/sandbox-harness.ts';

let sandbox: SandboxHarness;
let token: string;
let baseMs: number;
beforeAll(async () => {
  sandbox = await startHarness();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await sandbox.admin('POST', '/reset');
  token = await sandbox.boundToken('PLANT-EU-001');
  baseMs = Math.ceil((await sandbox.nowMs()) / MINUTE_MS) * MINUTE_MS + HOUR_MS;
});

const DEVICE = 'BAT-EU-001-A';
const CHARGE: PowerControl = { targetBatteryPowerW: -3000 };
const window = (offsetMs: number, durationMs: number) => ({
  startTime: iso(baseMs + offsetMs),
  endTime: iso(baseMs + offsetMs + durationMs),
});

const submitRaw = (body: unknown, deviceId = DEVICE) =>
  sandbox.call('POST', `/eu/device/${deviceId}/commands`, { token, json: body });

async function submit(
  w = window(0, HOUR_MS),
  powerControl: PowerControl = CHARGE,
  deviceId = DEVICE,
): Promise<string> {
  const response = await submitRaw({ powerControl, ...w }, deviceId);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  return SubmissionResponseSchema.parse(response.body).id;
}

async function status(id: string, deviceId = DEVICE): Promise<StatusRecord> {
  const response = await sandbox.call('GET', `/eu/devices/${deviceId}/commands/${id}`, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return StatusRecordSchema.parse(response.body);
}

const cancel = (id: string, deviceId = DEVICE) =>
  sandbox.call('PUT', `/eu/devices/${deviceId}/commands/${id}/cancel`, { token });
const setClock = (ms: number) => sandbox.admin('POST', '/clock', { now: iso(ms) });

describe('error messages', () => {
  it('say what is wrong and what to do, without naming spec sections', async () => {
    await submit(window(0, HOUR_MS));
    const answers = [
      await submitRaw({ powerControl: CHARGE, ...window(0, HOUR_MS) }),
      await submitRaw({
        powerControl: { targetBatteryPowerW: 900_000 },
        ...window(HOUR_MS, HOUR_MS),
      }),
      await submitRaw({ powerControl: {}, ...window(HOUR_MS, HOUR_MS) }),
      await submitRaw({ powerControl: CHARGE, ...window(HOUR_MS, HOUR_MS) }, 'BAT-EU-002-A'),
      await sandbox.call('GET', '/eu/sites'),
      await sandbox.call('POST', '/eu/devices/commands/batch', {
        token,
        json: {
          devices: Array.from({ length: 51 }, (_, i) => `BAT-EU-100-${String(i).padStart(2, '0')}`),
          command: { powerControl: CHARGE, ...window(HOUR_MS, HOUR_MS) },
        },
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([409, 422, 400, 403, 401, 400]);
    for (const answer of answers)
      expect((answer.body as { message: string }).message).not.toMatch(/\bspec \d|DESIGN/);
  });
});

describe('submit (spec 2.1, 2.3, 3.1 row 1)', () => {
  it('accepts with 202 and a cmd_ ID; the status record is received with the window', async () => {
    const response = await submitRaw({ powerControl: CHARGE, ...window(0, HOUR_MS) });
    expect(response.status).toBe(202);
    const accepted = SubmissionResponseSchema.parse(response.body);
    expect(accepted.id).toMatch(/^cmd_/);
    const record = await status(accepted.id);
    expect(record).toMatchObject({
      id: accepted.id,
      deviceId: DEVICE,
      status: 'received',
      powerControl: CHARGE,
      ...window(0, HOUR_MS),
      receivedAt: accepted.timestamp,
    });
    expect(record.startedAt).toBeUndefined();
  });

  it('refuses an overlapping window with 409 window_overlap naming the existing command', async () => {
    const existing = await submit(window(0, 2 * HOUR_MS));
    const refused = await submitRaw({ powerControl: CHARGE, ...window(HOUR_MS, 2 * HOUR_MS) });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'window_overlap',
      details: { conflictingCommandId: existing, ...window(0, 2 * HOUR_MS) },
    });
    const { details } = refused.body as { details: unknown };
    expect(WindowOverlapDetailsSchema.safeParse(details).success).toBe(true);
  });

  it('accepts touching windows and windows on other devices', async () => {
    await submit(window(0, HOUR_MS));
    await submit(window(HOUR_MS, HOUR_MS));
    await submit(window(-HOUR_MS / 2, HOUR_MS / 2));
    await submit(window(0, HOUR_MS), CHARGE, 'BAT-EU-001-B');
  });

  it('accepts a window overlapping only a cancelled command', async () => {
    const first = await submit();
    expect((await cancel(first)).status).toBe(200);
    await submit();
  });

  it('refuses a value outside the capability range with 422 naming property, value, min and max', async () => {
    const response = await submitRaw({
      powerControl: { targetBatteryPowerW: 5001 },
      ...window(0, HOUR_MS),
    });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      code: 'capability_out_of_range',
      details: { property: 'targetBatteryPowerW', value: 5001, min: -5000, max: 5000 },
    });
    expect((response.body as { message: string }).message).toContain('targetBatteryPowerW');
    await submit(window(0, HOUR_MS), { chargeCutoffSocPercent: 50 });
  });

  it('refuses a window that has already ended with 400 naming endTime', async () => {
    const nowMs = await sandbox.nowMs();
    const response = await submitRaw({
      powerControl: CHARGE,
      startTime: iso(nowMs - 2 * HOUR_MS),
      endTime: iso(nowMs - HOUR_MS),
    });
    expect(response.status).toBe(400);
    expect((response.body as { message: string }).message).toContain('endTime');
  });

  it('starts a window that began already at once', async () => {
    const nowMs = await sandbox.nowMs();
    const id = await submit({ startTime: iso(nowMs - MINUTE_MS), endTime: iso(nowMs + HOUR_MS) });
    const record = await status(id);
    expect(record.status).toBe('executing');
    expect(record.startedAt).toBe(record.receivedAt);
  });

  it.each([
    [
      {
        powerControl: {},
        ...{ startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-01T01:00:00Z' },
      },
      'powerControl',
    ],
    [
      {
        powerControl: { targetPowerW: 1 },
        startTime: '2030-01-01T00:00:00Z',
        endTime: '2030-01-01T01:00:00Z',
      },
      'powerControl',
    ],
    [
      {
        powerControl: { chargeCutoffSocPercent: 101 },
        startTime: '2030-01-01T00:00:00Z',
        endTime: '2030-01-01T01:00:00Z',
      },
      'chargeCutoffSocPercent',
    ],
    [
      {
        powerControl: { targetBatteryPowerW: 1.5 },
        startTime: '2030-01-01T00:00:00Z',
        endTime: '2030-01-01T01:00:00Z',
      },
      'targetBatteryPowerW',
    ],
    [
      {
        powerControl: { targetBatteryPowerW: 1 },
        startTime: '2030-01-01T02:00:00Z',
        endTime: '2030-01-01T01:00:00Z',
      },
      'endTime',
    ],
    [
      {
        powerControl: { targetBatteryPowerW: 1 },
        startTime: '2030-01-01T00:00:00+01:00',
        endTime: '2030-01-01T01:00:00Z',
      },
      'startTime',
    ],
    [{ powerControl: { targetBatteryPowerW: 1 }, startTime: '2030-01-01T00:00:00Z' }, 'endTime'],
    ['not an object', 'body'],
    [null, 'body'],
    [undefined, 'body'],
  ])('answers 400 invalid_request naming the field for %j', async (body, field) => {
    const response = await submitRaw(body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request' });
    expect((response.body as { message: string }).message).toContain(field);
  });

  it('answers 400 for malformed JSON and a wrong media type, never 5xx', async () => {
    const malformed = await sandbox.app.inject({
      method: 'POST',
      url: `/eu/device/${DEVICE}/commands`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"powerControl":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'invalid_request' });
    const text = await sandbox.app.inject({
      method: 'POST',
      url: `/eu/device/${DEVICE}/commands`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(text.statusCode).toBe(400);
    expect(text.json()).toMatchObject({ code: 'invalid_request' });
  });

  it('answers 400 naming deviceId for a path ID outside the pattern, 404 for an unknown device', async () => {
    const bad = await sandbox.call('GET', '/eu/devices/BAT.1/commands/cmd_1', { token });
    expect(bad.status).toBe(400);
    expect((bad.body as { message: string }).message).toContain('deviceId');
    const long = await sandbox.call('GET', `/eu/devices/${'A'.repeat(200)}/commands/x`, { token });
    expect(long.status).toBe(400);
    const unknown = await submitRaw({ powerControl: CHARGE, ...window(0, HOUR_MS) }, 'NO-SUCH-1');
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('answers 403 site_not_bound for a device of an unbound site, 404 for one of the other region', async () => {
    const unbound = await submitRaw(
      { powerControl: CHARGE, ...window(0, HOUR_MS) },
      'BAT-EU-002-A',
    );
    expect(unbound).toMatchObject({ status: 403, body: { code: 'site_not_bound' } });
    const otherRegion = await submitRaw(
      { powerControl: CHARGE, ...window(0, HOUR_MS) },
      'BAT-AU-001-A',
    );
    expect(otherRegion).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('hides the commands of an unbound site with 403 until it is bound again', async () => {
    const id = await submit();
    await sandbox.call('DELETE', '/eu/sites', { token, json: { siteId: 'PLANT-EU-001' } });
    const hidden = await sandbox.call('GET', `/eu/devices/${DEVICE}/commands/${id}`, { token });
    expect(hidden).toMatchObject({ status: 403, body: { code: 'site_not_bound' } });
    expect((await cancel(id)).status).toBe(403);
    await sandbox.call('POST', '/eu/sites', { token, json: { siteId: 'PLANT-EU-001' } });
    expect((await status(id)).status).toBe('received');
  });
});

describe('status and cancel (spec 3.1)', () => {
  it('answers 404 for an unknown command and for a command of another device', async () => {
    const id = await submit();
    for (const [deviceId, commandId] of [
      [DEVICE, 'cmd_unknown'],
      ['BAT-EU-001-B', id],
    ] as const) {
      const response = await sandbox.call('GET', `/eu/devices/${deviceId}/commands/${commandId}`, {
        token,
      });
      expect(response).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect((await cancel(commandId, deviceId)).status).toBe(404);
    }
  });

  it('cancels a received command with manuallyCancel, answering the updated record', async () => {
    const id = await submit();
    const response = await cancel(id);
    expect(response.status).toBe(200);
    const record = StatusRecordSchema.parse(response.body);
    expect(record).toMatchObject({ id, status: 'cancelled', cancelReason: 'manuallyCancel' });
    expect(await status(id)).toEqual(record);
  });

  it('cancels an executing command; it never completes', async () => {
    const id = await submit();
    await setClock(baseMs + MINUTE_MS);
    expect((await status(id)).status).toBe('executing');
    expect((await cancel(id)).status).toBe(200);
    await setClock(baseMs + 2 * HOUR_MS);
    const record = await status(id);
    expect(record).toMatchObject({ status: 'cancelled', cancelReason: 'manuallyCancel' });
    expect(record.completedAt).toBeUndefined();
  });

  it('refuses to cancel a completed or cancelled command with 409 not_cancellable and says why', async () => {
    const completed = await submit();
    const cancelled = await submit(window(HOUR_MS, HOUR_MS));
    await cancel(cancelled);
    await setClock(baseMs + HOUR_MS);
    const first = await cancel(completed);
    expect(first).toMatchObject({ status: 409, body: { code: 'not_cancellable' } });
    expect((first.body as { message: string }).message).toContain(
      'a completed command cannot be cancelled',
    );
    const second = await cancel(cancelled);
    expect(second).toMatchObject({ status: 409, body: { code: 'not_cancellable' } });
    expect((second.body as { message: string }).message).toContain('already cancelled');
  });
});

describe('lifecycle on the sandbox clock', () => {
  it('goes received -> executing at startTime -> completed at endTime, stamping due instants', async () => {
    const id = await submit();
    await setClock(baseMs - 1000);
    expect((await status(id)).status).toBe('received');
    await setClock(baseMs);
    expect(await status(id)).toMatchObject({ status: 'executing', startedAt: iso(baseMs) });
    await setClock(baseMs + HOUR_MS - 1);
    expect((await status(id)).status).toBe('executing');
    await setClock(baseMs + HOUR_MS);
    expect(await status(id)).toMatchObject({
      status: 'completed',
      completedAt: iso(baseMs + HOUR_MS),
    });
  });

  it('runs both transitions on one jump over the whole window', async () => {
    const id = await submit();
    await sandbox.admin('POST', '/clock', { advanceMs: 5 * HOUR_MS });
    const record = await status(id);
    expect(record).toMatchObject({
      status: 'completed',
      startedAt: iso(baseMs),
      completedAt: iso(baseMs + HOUR_MS),
    });
  });

  it('ends notSupported at start for a control the device lacks (spec 7)', async () => {
    const id = await submit(window(0, HOUR_MS), { siteExportLimitW: 1000 }, 'BAT-EU-001-C');
    expect((await status(id, 'BAT-EU-001-C')).status).toBe('received');
    await setClock(baseMs);
    expect(await status(id, 'BAT-EU-001-C')).toMatchObject({
      status: 'cancelled',
      cancelReason: 'notSupported',
      cancelledAt: iso(baseMs),
    });
  });

  it('ends startTimeExpire when the device stays offline 60 s past start', async () => {
    const id = await submit();
    await sandbox.admin('PUT', `/devices/${DEVICE}`, { online: false });
    await setClock(baseMs + 59_000);
    expect((await status(id)).status).toBe('received');
    await setClock(baseMs + 60_000);
    const record = await status(id);
    expect(record).toMatchObject({
      status: 'cancelled',
      cancelReason: 'startTimeExpire',
      cancelledAt: iso(baseMs + 60_000),
    });
    expect(record.startedAt).toBeUndefined();
  });

  it('starts late when an offline device comes back within the grace', async () => {
    const id = await submit();
    await sandbox.admin('PUT', `/devices/${DEVICE}`, { online: false });
    await setClock(baseMs + 30_000);
    await sandbox.admin('PUT', `/devices/${DEVICE}`, { online: true });
    expect(await status(id)).toMatchObject({
      status: 'executing',
      startedAt: iso(baseMs + 30_000),
    });
  });

  it('ends deviceFault for a fault before start and for a fault while executing', async () => {
    const before = await submit();
    const during = await submit(window(0, HOUR_MS), CHARGE, 'BAT-EU-001-B');
    await sandbox.admin('PUT', '/devices/BAT-EU-001-A', { fault: true });
    await setClock(baseMs + MINUTE_MS);
    expect(await status(before)).toMatchObject({
      status: 'cancelled',
      cancelReason: 'deviceFault',
      cancelledAt: iso(baseMs),
    });
    expect((await status(during, 'BAT-EU-001-B')).status).toBe('executing');
    await sandbox.admin('PUT', '/devices/BAT-EU-001-B', { fault: true });
    const record = await status(during, 'BAT-EU-001-B');
    expect(record).toMatchObject({ status: 'cancelled', cancelReason: 'deviceFault' });
    expect(Date.parse(record.cancelledAt ?? '')).toBeGreaterThanOrEqual(baseMs + MINUTE_MS);
  });

  it('frees the window of a final command for a new submission', async () => {
    await submit();
    await setClock(baseMs + HOUR_MS);
    await submit(window(HOUR_MS, HOUR_MS));
  });
});

describe('history (our choice of path and parameters)', () => {
  const history = (query: Record<string, string>, deviceId = DEVICE) =>
    sandbox.call(
      'GET',
      `/eu/devices/${deviceId}/commands?${new URLSearchParams(query).toString()}`,
      { token },
    );

  it('lists commands whose window intersects the range, by start time, filtered by status', async () => {
    const later = await submit(window(2 * HOUR_MS, HOUR_MS));
    const earlier = await submit(window(0, HOUR_MS));
    const far = await submit(window(30 * HOUR_MS, HOUR_MS));
    await cancel(later);
    const all = await history({ startTime: iso(baseMs), endTime: iso(baseMs + 10 * HOUR_MS) });
    expect(all.status).toBe(200);
    const ids = HistoryResponseSchema.parse(all.body).commands.map((command) => command.id);
    expect(ids).toEqual([earlier, later]);
    expect(ids).not.toContain(far);
    const cancelled = await history({
      startTime: iso(baseMs),
      endTime: iso(baseMs + 10 * HOUR_MS),
      status: 'cancelled',
    });
    expect(HistoryResponseSchema.parse(cancelled.body).commands.map((c) => c.id)).toEqual([later]);
    const touching = await history({
      startTime: iso(baseMs + HOUR_MS),
      endTime: iso(baseMs + 2 * HOUR_MS),
    });
    expect(HistoryResponseSchema.parse(touching.body).commands).toEqual([]);
  });

  it.each([
    [{ endTime: '2030-01-02T00:00:00Z' }, 'startTime'],
    [{ startTime: '2030-01-01T00:00:00Z', endTime: '2030-03-01T00:00:00Z' }, '30 days'],
    [{ startTime: '2030-01-02T00:00:00Z', endTime: '2030-01-01T00:00:00Z' }, 'endTime'],
    [
      { startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-02T00:00:00Z', status: 'done' },
      'status',
    ],
    [{ startTime: '2030-01-01', endTime: '2030-01-02T00:00:00Z' }, 'startTime'],
  ])('answers 400 naming the problem for %j', async (query, words) => {
    const response = await history(query);
    expect(response.status).toBe(400);
    expect((response.body as { message: string }).message).toContain(words);
  });

  it('allows exactly 30 days', async () => {
    const response = await history({
      startTime: '2030-01-01T00:00:00Z',
      endTime: '2030-01-31T00:00:00Z',
    });
    expect(response.status).toBe(200);
  });
});
