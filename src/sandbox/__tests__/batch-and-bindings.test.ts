import { beforeEach, describe, expect, it } from 'vitest';
import { SandboxError } from '../sandbox-error.ts';
import type { SandboxState } from '../state/sandbox-state.ts';
import {
  BatchAcceptedSchema,
  BatchCancelAnswerSchema,
  ErrorBodySchema,
  HistoryPageSchema,
  type CommandRequest,
} from '../vendor/schemas.ts';
import { ALPHA, BETA, nextMinute, openSmallState, START_MS } from './support/state-harness.ts';
import { EU, useSandboxHarness } from './support/sandbox-harness.ts';

const HOUR_MS = 3_600_000;
const command = (offsetMs = HOUR_MS, watts = 1000): CommandRequest => ({
  powerControl: { targetBatteryPowerW: watts },
  startTime: new Date(START_MS + offsetMs).toISOString(),
  endTime: new Date(START_MS + offsetMs + HOUR_MS).toISOString(),
});

async function refusal(promise: Promise<unknown>): Promise<SandboxError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof SandboxError))
    throw new Error(`expected a SandboxError, got ${String(error)}`);
  return error;
}

let state: SandboxState;
beforeEach(async () => {
  state = await openSmallState();
});

const historyOf = async (deviceId: string) =>
  (
    await state.history(ALPHA, deviceId, {
      startTime: new Date(START_MS).toISOString(),
      endTime: new Date(START_MS + 10 * HOUR_MS).toISOString(),
      page: 1,
      size: 500,
    })
  ).commands;

describe('a site is bound to one client at a time (docs/upstream.md, Sites)', () => {
  it("refuses a site another client holds with 409 and gives it none of the holder's data", async () => {
    await state.bindSite(ALPHA, 'SITE-1');
    expect((await refusal(state.bindSite(BETA, 'SITE-1'))).code).toBe('SITE_ALREADY_BOUND');
    expect(await state.listSites(BETA, { page: 1, size: 20, includeDevices: true })).toMatchObject({
      total: 0,
    });
    expect((await refusal(state.submit(BETA, 'DEV-A', command()))).code).toBe('NOT_FOUND');
    const accepted = await state.submit(ALPHA, 'DEV-A', command());
    expect((await refusal(state.status(BETA, 'DEV-A', accepted.id))).code).toBe('NOT_FOUND');
  });

  it('lets the other client bind it once the holder has unbound it', async () => {
    await state.bindSite(ALPHA, 'SITE-1');
    const accepted = await state.submit(ALPHA, 'DEV-A', command());
    await state.unbindSite(ALPHA, 'SITE-1');
    await state.bindSite(BETA, 'SITE-1');
    expect((await state.status(BETA, 'DEV-A', accepted.id)).id).toBe(accepted.id);
    expect((await refusal(state.bindSite(ALPHA, 'SITE-1'))).code).toBe('SITE_ALREADY_BOUND');
  });
});

describe('batch submission (docs/upstream.md, Batches)', () => {
  beforeEach(async () => {
    await state.bindSite(ALPHA, 'SITE-1');
  });

  it('creates one received command per device, kept with the batch for its cancel', async () => {
    const { batch, commands } = await state.submitBatch(ALPHA, {
      devices: ['DEV-A', 'DEV-B'],
      command: command(),
    });
    expect(batch.id).toMatch(/^batch_/);
    expect(commands.map((c) => [c.deviceId, c.status, c.batchCommandId])).toEqual([
      ['DEV-A', 'received', batch.id],
      ['DEV-B', 'received', batch.id],
    ]);
  });

  it('gives an overlapping device a command cancelled at once with timeWindowOverlap', async () => {
    const existing = await state.submit(ALPHA, 'DEV-A', command());
    const { commands } = await state.submitBatch(ALPHA, {
      devices: ['DEV-A', 'DEV-B'],
      command: command(HOUR_MS / 2),
    });
    expect(commands[0]).toMatchObject({
      status: 'cancelled',
      cancelReason: 'timeWindowOverlap',
      cancelledAtMs: START_MS,
    });
    expect(commands[1]?.status).toBe('received');
    await nextMinute(state);
    expect((await state.status(ALPHA, 'DEV-A', existing.id)).status).toBe('received');
  });

  it.each([
    ['a device not found', ['DEV-A', 'NOPE'], command(), 'NOT_FOUND'],
    ['an out-of-range value', ['DEV-A', 'DEV-B'], command(HOUR_MS, 9000), 'CAPABILITY_EXCEEDED'],
    ['an ended window', ['DEV-A'], command(-2 * HOUR_MS), 'INVALID_REQUEST'],
  ])('refuses the whole batch for %s and creates nothing', async (_what, devices, body, code) => {
    expect((await refusal(state.submitBatch(ALPHA, { devices, command: body }))).code).toBe(code);
    expect(await historyOf('DEV-A')).toEqual([]);
  });

  it('refuses the whole batch with 404 for a device of a site not bound to the client', async () => {
    expect(
      (await refusal(state.submitBatch(BETA, { devices: ['DEV-A'], command: command() }))).code,
    ).toBe('NOT_FOUND');
  });

  it('accepts a control a device lacks; that command ends notSupported at start', async () => {
    const { commands } = await state.submitBatch(ALPHA, {
      devices: ['DEV-B', 'DEV-C'],
      command: { ...command(), powerControl: { siteExportLimitW: 100 } },
    });
    await state.moveClock(START_MS + HOUR_MS);
    const [b, c] = await Promise.all(commands.map((x) => state.status(ALPHA, x.deviceId, x.id)));
    expect(b?.status).toBe('executing');
    expect(c).toMatchObject({ status: 'cancelled', cancelReason: 'notSupported' });
  });
});

describe('batch cancel (docs/upstream.md, Batches)', () => {
  beforeEach(async () => {
    await state.bindSite(ALPHA, 'SITE-1');
  });

  it('answers one result per device in request order, cancelled and failed mixed, with command IDs', async () => {
    const { batch, commands } = await state.submitBatch(ALPHA, {
      devices: ['DEV-A', 'DEV-B', 'DEV-C'],
      command: command(),
    });
    await state.cancel(ALPHA, 'DEV-B', commands[1]?.id ?? '');
    await nextMinute(state);
    const outcome = await state.cancelBatch(ALPHA, batch.id);
    expect(outcome.batchCommandId).toBe(batch.id);
    expect(outcome.results.map((r) => [r.deviceId, r.commandId, r.status])).toEqual([
      ['DEV-A', commands[0]?.id, 'cancelled'],
      ['DEV-B', commands[1]?.id, 'failed'],
      ['DEV-C', commands[2]?.id, 'cancelled'],
    ]);
    expect(outcome.results[1]?.message).toContain('already cancelled');
    expect(outcome.cancelledCount).toBe(2);
  });

  it('fails every device whose site was unbound since, saying so', async () => {
    const { batch } = await state.submitBatch(ALPHA, {
      devices: ['DEV-A', 'DEV-B'],
      command: command(),
    });
    await state.unbindSite(ALPHA, 'SITE-1');
    const outcome = await state.cancelBatch(ALPHA, batch.id);
    expect(outcome.results.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(outcome.results[0]?.message).toContain('not bound');
  });

  it('answers 409 BATCH_NOT_CANCELLABLE when every command is final, completed or cancelled', async () => {
    const { batch } = await state.submitBatch(ALPHA, { devices: ['DEV-A'], command: command() });
    await state.moveClock(START_MS + 2 * HOUR_MS);
    expect((await refusal(state.cancelBatch(ALPHA, batch.id))).code).toBe('BATCH_NOT_CANCELLABLE');
    const second = await state.submitBatch(ALPHA, {
      devices: ['DEV-A', 'DEV-B'],
      command: command(3 * HOUR_MS),
    });
    await nextMinute(state);
    expect((await state.cancelBatch(ALPHA, second.batch.id)).cancelledCount).toBe(2);
    expect((await refusal(state.cancelBatch(ALPHA, second.batch.id))).code).toBe(
      'BATCH_NOT_CANCELLABLE',
    );
  });

  it("answers 404 for an unknown batch and for another client's batch", async () => {
    const { batch } = await state.submitBatch(ALPHA, { devices: ['DEV-A'], command: command() });
    expect((await refusal(state.cancelBatch(ALPHA, 'batch_nope'))).code).toBe('NOT_FOUND');
    expect((await refusal(state.cancelBatch(BETA, batch.id))).code).toBe('NOT_FOUND');
  });
});

describe('batch over HTTP', () => {
  const sandbox = useSandboxHarness();
  let token: string;
  let nowMs: number;
  beforeEach(async () => {
    token = await sandbox.boundToken('PLANT-EU-100');
    await sandbox.call('POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-001' } });
    nowMs = await sandbox.nowMs();
  });
  const body = (devices: string[]) => ({
    devices,
    command: {
      powerControl: { targetBatteryPowerW: 1 },
      startTime: new Date(nowMs + HOUR_MS).toISOString(),
      endTime: new Date(nowMs + 2 * HOUR_MS).toISOString(),
    },
  });
  const ids = Array.from({ length: 51 }, (_, i) => `BAT-EU-100-${String(i + 1).padStart(2, '0')}`);
  const send = (devices: string[]) =>
    sandbox.call('POST', `${EU}/devices/commands`, { token, json: body(devices) });

  it('answers 400 naming devices for 51 devices (the spec cap, below the vendor 100), a repeated device or none', async () => {
    for (const devices of [ids, ['BAT-EU-100-01', 'BAT-EU-100-01'], []]) {
      const response = await send(devices);
      expect(response.status).toBe(400);
      const error = ErrorBodySchema.parse(response.body);
      expect(error.errorCode).toBe('INVALID_REQUEST');
      expect(error.message).toContain('devices');
    }
  });

  it('accepts 50 devices with 202 and the batch ID only, no per-device command IDs', async () => {
    const fifty = await send(ids.slice(0, 50));
    expect(fifty.status).toBe(202);
    expect(Object.keys(fifty.body as object).sort()).toEqual([
      'batchCommandId',
      'message',
      'timestamp',
    ]);
    BatchAcceptedSchema.parse(fifty.body);
  });

  it('names the devices cancelled at once for overlap in the message, and cancels the rest with results', async () => {
    const first = await send(['BAT-EU-001-A']);
    expect(first.status).toBe(202);
    const second = await send(['BAT-EU-001-A', 'BAT-EU-001-B']);
    const accepted = BatchAcceptedSchema.parse(second.body);
    expect(accepted.message).toContain('timeWindowOverlap): BAT-EU-001-A');
    await sandbox.nextMinute();
    const history = await sandbox.call(
      'GET',
      `${EU}/device/BAT-EU-001-A/commands?startTime=${body([]).command.startTime}&endTime=${body([]).command.endTime}`,
      { token },
    );
    // Same window, received at the same instant (frozen clock): sort for a stable order.
    const records = HistoryPageSchema.parse(history.body).commands.sort((a, b) =>
      a.status.localeCompare(b.status),
    );
    expect(records.map((record) => [record.status, record.cancellReason])).toEqual([
      ['cancelled', 'timeWindowOverlap'],
      ['received', undefined],
    ]);
    const cancelled = await sandbox.call(
      'PUT',
      `${EU}/devices/commands/${accepted.batchCommandId}/cancel`,
      { token },
    );
    expect(cancelled.status).toBe(200);
    const answer = BatchCancelAnswerSchema.parse(cancelled.body);
    expect(answer.results.map((result) => [result.deviceId, result.status])).toEqual([
      ['BAT-EU-001-A', 'failed'],
      ['BAT-EU-001-B', 'cancelled'],
    ]);
    expect(answer.results[0]?.commandId).toBe(records[0]?.id);
  });

  it('answers 404 naming the devices of a batch not found or not yours', async () => {
    const response = await send(['BAT-EU-100-01', 'BAT-EU-002-A', 'BAT-EU-003-A']);
    expect(response.status).toBe(404);
    const error = ErrorBodySchema.parse(response.body);
    expect(error.errorCode).toBe('NOT_FOUND');
    expect(error.message).toContain('BAT-EU-002-A, BAT-EU-003-A');
  });
});
