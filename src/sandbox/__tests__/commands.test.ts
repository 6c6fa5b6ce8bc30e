import { beforeEach, describe, expect, it } from 'vitest';
import {
  CancelAnswerSchema,
  ErrorBodySchema,
  HistoryPageSchema,
  StatusRecordSchema,
  SubmissionAnswerSchema,
  type PowerControl,
  type StatusRecord,
} from '../vendor/schemas.ts';
import {
  EU,
  HOUR_MS,
  iso,
  MINUTE_MS,
  useSandboxHarness,
  type HarnessResponse,
} from './support/sandbox-harness.ts';

const sandbox = useSandboxHarness();
let token: string;
let baseMs: number;
beforeEach(async () => {
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
  sandbox.call('POST', `${EU}/device/${deviceId}/commands`, { token, json: body });

/** The error's code and message, checking the vendor's error shape. */
function refusal(response: HarnessResponse, status: number, errorCode: string): string {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const body = ErrorBodySchema.parse(response.body);
  expect(body.errorCode).toBe(errorCode);
  return body.message;
}

async function submit(
  w = window(0, HOUR_MS),
  powerControl: PowerControl = CHARGE,
  deviceId = DEVICE,
): Promise<string> {
  const response = await submitRaw({ powerControl, ...w }, deviceId);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  return SubmissionAnswerSchema.parse(response.body).id;
}

async function status(id: string, deviceId = DEVICE): Promise<StatusRecord> {
  const response = await sandbox.call('GET', `${EU}/devices/${deviceId}/commands/${id}`, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return StatusRecordSchema.parse(response.body);
}

/** A command body for the first hour of 2030 (UTC): the refusal table varies one field of it. */
const januaryHour = (powerControl: unknown, startTime = '2030-01-01T00:00:00Z') => ({
  powerControl,
  startTime,
  endTime: '2030-01-01T01:00:00Z',
});

const cancel = (id: string, deviceId = DEVICE) =>
  sandbox.call('PUT', `${EU}/devices/${deviceId}/commands/${id}/cancel`, { token });
const setClock = (ms: number) => sandbox.admin('POST', '/clock', { now: iso(ms) });

describe('error messages', () => {
  it('say what is wrong and what to do, without naming spec sections', async () => {
    await submit(window(0, HOUR_MS));
    const answers = [
      await submitRaw({ powerControl: CHARGE, ...window(0, HOUR_MS) }),
      await sandbox.nextMinute().then(() =>
        submitRaw({
          powerControl: { targetBatteryPowerW: 900_000 },
          ...window(HOUR_MS, HOUR_MS),
        }),
      ),
      await submitRaw({ powerControl: {}, ...window(HOUR_MS, HOUR_MS) }),
      await submitRaw({ powerControl: CHARGE, ...window(HOUR_MS, HOUR_MS) }, 'BAT-EU-002-A'),
      await sandbox.call('GET', `${EU}/sites`),
      await sandbox.call('POST', `${EU}/devices/commands`, {
        token,
        json: {
          devices: Array.from({ length: 51 }, (_, i) => `BAT-EU-100-${String(i).padStart(2, '0')}`),
          command: { powerControl: CHARGE, ...window(HOUR_MS, HOUR_MS) },
        },
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([409, 422, 400, 404, 401, 400]);
    for (const answer of answers)
      expect((answer.body as { message: string }).message).not.toMatch(/\bspec \d|DESIGN/);
  });
});

describe('submit (docs/upstream.md, Commands)', () => {
  it('accepts with 202 and a cmd_ ID; the status record is received with the window', async () => {
    const response = await submitRaw({ powerControl: CHARGE, ...window(0, HOUR_MS) });
    expect(response.status).toBe(202);
    const accepted = SubmissionAnswerSchema.parse(response.body);
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

  it('refuses an overlapping window at once with 409 TIME_WINDOW_OVERLAP naming the existing command', async () => {
    const existing = await submit(window(0, 2 * HOUR_MS));
    const refused = await submitRaw({ powerControl: CHARGE, ...window(HOUR_MS, 2 * HOUR_MS) });
    const message = refusal(refused, 409, 'TIME_WINDOW_OVERLAP');
    expect(message).toContain(existing);
    expect(message).toContain(window(0, 2 * HOUR_MS).startTime);
    expect(Object.keys(refused.body as object).sort()).toEqual([
      'errorCode',
      'message',
      'timestamp',
    ]);
    await sandbox.nextMinute();
    expect((await status(existing)).status).toBe('received');
  });

  it('accepts touching windows and windows on other devices', async () => {
    await submit(window(0, HOUR_MS));
    await submit(window(HOUR_MS, HOUR_MS));
    await sandbox.nextMinute();
    await submit(window(-HOUR_MS / 2, HOUR_MS / 2));
    await submit(window(0, HOUR_MS), CHARGE, 'BAT-EU-001-B');
  });

  it('accepts a window overlapping only a cancelled command', async () => {
    const first = await submit();
    expect((await cancel(first)).status).toBe(200);
    await sandbox.nextMinute();
    await submit();
  });

  it('refuses targetBatteryPowerW beyond the kW data with 422 CAPABILITY_EXCEEDED naming value and range', async () => {
    for (const watts of [5001, -5001]) {
      const message = refusal(
        await submitRaw({ powerControl: { targetBatteryPowerW: watts }, ...window(0, HOUR_MS) }),
        422,
        'CAPABILITY_EXCEEDED',
      );
      expect(message).toContain(`targetBatteryPowerW ${watts}`);
      expect(message).toContain('-5000 to 5000');
    }
    await sandbox.nextMinute();
    await submit(window(0, HOUR_MS), { targetBatteryPowerW: -5000 });
    await submit(window(HOUR_MS, HOUR_MS), { targetBatteryPowerW: 5000 });
  });

  it('accepts the schema bounds of the other controls: SoC cut-offs 5..100, site limits 0..65535', async () => {
    await submit(window(0, HOUR_MS), {
      chargeCutoffSocPercent: 5,
      dischargeCutoffSocPercent: 100,
      siteImportLimitW: 0,
      siteExportLimitW: 65_535,
    });
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
    [januaryHour({}), 'powerControl'],
    [januaryHour({ targetPowerW: 1 }), 'powerControl'],
    [januaryHour({ chargeCutoffSocPercent: 101 }), 'chargeCutoffSocPercent'],
    [januaryHour({ dischargeCutoffSocPercent: 4 }), 'dischargeCutoffSocPercent'],
    [januaryHour({ siteImportLimitW: 65_536 }), 'siteImportLimitW'],
    [januaryHour({ siteExportLimitW: -1 }), 'siteExportLimitW'],
    [januaryHour({ targetBatteryPowerW: 1.5 }), 'targetBatteryPowerW'],
    [januaryHour({ targetBatteryPowerW: 1 }, '2030-01-01T02:00:00Z'), 'endTime'],
    [januaryHour({ targetBatteryPowerW: 1 }, '2030-01-01T00:00:00+01:00'), 'startTime'],
    [{ powerControl: { targetBatteryPowerW: 1 }, startTime: '2030-01-01T00:00:00Z' }, 'endTime'],
    ['not an object', 'body'],
    [null, 'body'],
    [undefined, 'body'],
  ])('answers 400 INVALID_REQUEST naming the field for %j', async (body, field) => {
    expect(refusal(await submitRaw(body), 400, 'INVALID_REQUEST')).toContain(field);
  });

  it('answers 400 for malformed JSON and a wrong media type, never 5xx', async () => {
    for (const [contentType, payload] of [
      ['application/json', '{"powerControl":'],
      ['text/plain', 'hello'],
    ]) {
      const response = await sandbox.app.inject({
        method: 'POST',
        url: `${EU}/device/${DEVICE}/commands`,
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
        payload,
      });
      expect(response.statusCode, contentType).toBe(400);
      expect(response.json(), contentType).toMatchObject({ errorCode: 'INVALID_REQUEST' });
    }
  });

  it('answers 400 naming deviceId for a path ID outside the pattern, 404 for an unknown device', async () => {
    const bad = await sandbox.call('GET', `${EU}/devices/BAT.1/commands/cmd_1`, { token });
    expect(refusal(bad, 400, 'INVALID_REQUEST')).toContain('deviceId');
    const long = await sandbox.call('GET', `${EU}/devices/${'A'.repeat(200)}/commands/x`, {
      token,
    });
    expect(long.status).toBe(400);
    const unknown = await submitRaw({ powerControl: CHARGE, ...window(0, HOUR_MS) }, 'NO-SUCH-1');
    refusal(unknown, 404, 'NOT_FOUND');
  });

  it('answers 404, never 403, for a device of an unbound site, of another partner or of the other region, in the same words', async () => {
    const body = { powerControl: CHARGE, ...window(0, HOUR_MS) };
    const messages = [];
    for (const deviceId of ['BAT-EU-002-A', 'BAT-EU-003-A', 'BAT-AU-001-A', 'NO-SUCH-1'])
      messages.push(
        refusal(await submitRaw(body, deviceId), 404, 'NOT_FOUND').replace(deviceId, '<id>'),
      );
    expect(new Set(messages).size).toBe(1);
  });

  it('hides the commands of an unbound site with 404 until it is bound again', async () => {
    const id = await submit();
    await sandbox.call('DELETE', `${EU}/sites/PLANT-EU-001`, { token });
    const hidden = await sandbox.call('GET', `${EU}/devices/${DEVICE}/commands/${id}`, { token });
    refusal(hidden, 404, 'NOT_FOUND');
    refusal(await cancel(id), 404, 'NOT_FOUND');
    const history = await sandbox.call(
      'GET',
      `${EU}/device/${DEVICE}/commands?startTime=${iso(baseMs)}&endTime=${iso(baseMs + HOUR_MS)}`,
      { token },
    );
    refusal(history, 404, 'NOT_FOUND');
    await sandbox.call('POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-001' } });
    expect((await status(id)).status).toBe('received');
  });
});

describe('status and cancel (docs/upstream.md, Commands, Status record)', () => {
  it('answers 404 for an unknown command and for a command of another device', async () => {
    const id = await submit();
    await sandbox.nextMinute();
    for (const [deviceId, commandId] of [
      [DEVICE, 'cmd_unknown'],
      ['BAT-EU-001-B', id],
    ] as const) {
      const response = await sandbox.call(
        'GET',
        `${EU}/devices/${deviceId}/commands/${commandId}`,
        {
          token,
        },
      );
      refusal(response, 404, 'NOT_FOUND');
      expect((await cancel(commandId, deviceId)).status).toBe(404);
    }
  });

  it('cancels a received command with manuallyCancel, answering "Command cancelled" with the ID', async () => {
    const id = await submit();
    const response = await cancel(id);
    expect(response.status).toBe(200);
    const answer = CancelAnswerSchema.parse(response.body);
    expect(answer).toMatchObject({ message: 'Command cancelled', commandId: id });
    await sandbox.nextMinute();
    const record = await status(id);
    expect(record).toMatchObject({
      id,
      status: 'cancelled',
      cancellReason: 'manuallyCancel',
      cancelledAt: answer.timestamp,
    });
    expect(record).not.toHaveProperty('cancelReason');
    expect(record).not.toHaveProperty('batchCommandId');
  });

  it('cancels an executing command; it never completes', async () => {
    const id = await submit();
    await setClock(baseMs + MINUTE_MS);
    expect((await status(id)).status).toBe('executing');
    expect((await cancel(id)).status).toBe(200);
    await setClock(baseMs + 2 * HOUR_MS);
    const record = await status(id);
    expect(record).toMatchObject({ status: 'cancelled', cancellReason: 'manuallyCancel' });
    expect(record.completedAt).toBeUndefined();
  });

  it('refuses to cancel a completed or cancelled command with 409 COMMAND_NOT_CANCELLABLE and says why', async () => {
    const completed = await submit();
    const cancelled = await submit(window(HOUR_MS, HOUR_MS));
    await sandbox.nextMinute();
    await cancel(cancelled);
    await setClock(baseMs + HOUR_MS);
    expect(refusal(await cancel(completed), 409, 'COMMAND_NOT_CANCELLABLE')).toContain(
      'a completed command cannot be cancelled',
    );
    expect(refusal(await cancel(cancelled), 409, 'COMMAND_NOT_CANCELLABLE')).toContain(
      'already cancelled',
    );
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

  it('accepts a control the device lacks and ends it notSupported at start', async () => {
    const id = await submit(window(0, HOUR_MS), { siteExportLimitW: 1000 }, 'BAT-EU-001-C');
    expect((await status(id, 'BAT-EU-001-C')).status).toBe('received');
    await setClock(baseMs);
    expect(await status(id, 'BAT-EU-001-C')).toMatchObject({
      status: 'cancelled',
      cancellReason: 'notSupported',
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
      cancellReason: 'startTimeExpire',
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
      cancellReason: 'deviceFault',
      cancelledAt: iso(baseMs),
    });
    expect((await status(during, 'BAT-EU-001-B')).status).toBe('executing');
    await sandbox.admin('PUT', '/devices/BAT-EU-001-B', { fault: true });
    const record = await status(during, 'BAT-EU-001-B');
    expect(record).toMatchObject({ status: 'cancelled', cancellReason: 'deviceFault' });
    expect(Date.parse(record.cancelledAt ?? '')).toBeGreaterThanOrEqual(baseMs + MINUTE_MS);
  });

  it('frees the window of a final command for a new submission', async () => {
    await submit();
    await setClock(baseMs + HOUR_MS);
    await submit(window(HOUR_MS, HOUR_MS));
  });
});

describe('history (docs/upstream.md, History)', () => {
  const history = (query: Record<string, string>, deviceId = DEVICE) =>
    sandbox.call(
      'GET',
      `${EU}/device/${deviceId}/commands?${new URLSearchParams(query).toString()}`,
      { token },
    );
  const range = { startTime: '', endTime: '' };
  beforeEach(() => {
    Object.assign(range, { startTime: iso(baseMs), endTime: iso(baseMs + 10 * HOUR_MS) });
  });

  it('lists commands whose window intersects the range, by start time, filtered by status', async () => {
    const later = await submit(window(2 * HOUR_MS, HOUR_MS));
    const earlier = await submit(window(0, HOUR_MS));
    await sandbox.nextMinute();
    const far = await submit(window(30 * HOUR_MS, HOUR_MS));
    await cancel(later);
    await sandbox.nextMinute();
    const all = await history(range);
    expect(all.status).toBe(200);
    const page = HistoryPageSchema.parse(all.body);
    expect(page).toMatchObject({ deviceId: DEVICE, total: 2, page: 1, size: 20 });
    const ids = page.commands.map((command) => command.id);
    expect(ids).toEqual([earlier, later]);
    expect(ids).not.toContain(far);
    const cancelled = await history({ ...range, status: 'cancelled' });
    expect(HistoryPageSchema.parse(cancelled.body).commands.map((c) => c.id)).toEqual([later]);
    expect(HistoryPageSchema.parse(cancelled.body).commands[0]?.cancellReason).toBe(
      'manuallyCancel',
    );
    await sandbox.nextMinute();
    const touching = await history({
      startTime: iso(baseMs + HOUR_MS),
      endTime: iso(baseMs + 2 * HOUR_MS),
    });
    expect(HistoryPageSchema.parse(touching.body)).toMatchObject({ total: 0, commands: [] });
  });

  it('pages the history: size per page, total over all pages, an empty page past the end', async () => {
    const ids = [];
    for (let i = 0; i < 5; i += 1) {
      await sandbox.nextMinute();
      ids.push(await submit(window(i * HOUR_MS, HOUR_MS)));
    }
    const pages = [];
    for (const page of ['1', '2', '3', '4']) {
      await sandbox.nextMinute();
      const response = await history({ ...range, page, size: '2' });
      pages.push(HistoryPageSchema.parse(response.body));
    }
    expect(pages.map((page) => [page.total, page.page, page.size])).toEqual([
      [5, 1, 2],
      [5, 2, 2],
      [5, 3, 2],
      [5, 4, 2],
    ]);
    expect(pages.flatMap((page) => page.commands.map((command) => command.id))).toEqual(ids);
    expect(pages[3]?.commands).toEqual([]);
  });

  it('is served on the singular /device path only', async () => {
    const plural = await sandbox.call(
      'GET',
      `${EU}/devices/${DEVICE}/commands?${new URLSearchParams(range).toString()}`,
      { token },
    );
    refusal(plural, 404, 'NOT_FOUND');
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
    [{ startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-02T00:00:00Z', size: '501' }, 'size'],
    [{ startTime: '2030-01-01T00:00:00Z', endTime: '2030-01-02T00:00:00Z', page: '0' }, 'page'],
  ])('answers 400 naming the problem for %j', async (query, words) => {
    expect(refusal(await history(query), 400, 'INVALID_REQUEST')).toContain(words);
  });

  it('allows exactly 30 days', async () => {
    const response = await history({
      startTime: '2030-01-01T00:00:00Z',
      endTime: '2030-01-31T00:00:00Z',
    });
    expect(response.status).toBe(200);
  });
});
