import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import {
  batchCommandsOf,
  CHARGE_3KW,
  expectError,
  historyOf,
  HOUR_MS,
  ms,
  SECOND_MS,
  statusOf,
  submit,
  submitBatch,
} from './support/steps.ts';
import {
  CancelAnswerSchema,
  SubmissionAnswerSchema,
  type CommandStatus,
} from '#sandbox/vendor/schemas.ts';

/**
 * The command lifecycle (docs/upstream.md, Lifecycle, Status record): one test per status,
 * transition, rule and cancellation reason. What moves a command is the sandbox's own (the vendor
 * documents no triggers): its clock reaching startTime and endTime, moved with the admin API.
 */
const target = useContractTarget();

const iso = (epochMs: number) => new Date(epochMs).toISOString();

async function historyIds(deviceId: string, status: CommandStatus): Promise<string[]> {
  const commands = await historyOf(
    target,
    deviceId,
    target.baseMs - HOUR_MS,
    target.baseMs + 10 * HOUR_MS,
    status,
  );
  expect(commands.every((command) => command.status === status)).toBe(true);
  return commands.map((command) => command.id);
}

describe('command states (docs/upstream.md, Status record)', () => {
  it('received: accepted by the service; execution has not started (also called pending)', async () => {
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    const record = await statusOf(target, deviceId, id);
    expect(record).toMatchObject({ id, deviceId, status: 'received', powerControl: CHARGE_3KW });
    expect(ms(record.startTime)).toBe(ms(window.startTime));
    expect(ms(record.endTime)).toBe(ms(window.endTime));
    expect(record.startedAt).toBeUndefined();
    await target.nextMinute();
    expect(await historyIds(deviceId, 'received')).toContain(id);
  });

  it('executing: the command is currently effective on the device', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock into the window');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(window.startTime);
    const record = await statusOf(target, deviceId, id);
    expect(record.status).toBe('executing');
    expect(record.startedAt).toBeDefined();
    expect(await historyIds(deviceId, 'executing')).toEqual([id]);
    await target.nextMinute();
    expect(await historyIds(deviceId, 'received')).not.toContain(id);
  });

  it('completed: the command reached the end of its execution lifecycle', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock past the window');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(window.startTime);
    await admin.setClock(window.endTime);
    const record = await statusOf(target, deviceId, id);
    expect(record.status).toBe('completed');
    expect(record.completedAt).toBeDefined();
    expect(await historyIds(deviceId, 'completed')).toEqual([id]);
  });

  it('cancelled: cancelled manually or by the service', async () => {
    const deviceId = target.config.deviceId;
    const id = await submit(target, deviceId, target.window(0, HOUR_MS));
    expect((await target.upstream.cancelCommand(deviceId, id)).status).toBe(200);
    await target.nextMinute();
    const record = await statusOf(target, deviceId, id);
    expect(record.status).toBe('cancelled');
    expect(record.cancellReason).toBeDefined();
    expect(await historyIds(deviceId, 'cancelled')).toContain(id);
  });
});

describe('transitions (docs/upstream.md, Lifecycle)', () => {
  it('(new) -> received on successful submission: HTTP 202 with the command ID', async () => {
    const deviceId = target.config.deviceId;
    const response = await target.upstream.submitCommand(deviceId, {
      powerControl: CHARGE_3KW,
      ...target.window(0, HOUR_MS),
    });
    expect(response.status).toBe(202);
    const accepted = SubmissionAnswerSchema.parse(response.body);
    target.track(deviceId, accepted.id);
    expect(accepted.message.length).toBeGreaterThan(0);
    const record = await statusOf(target, deviceId, accepted.id);
    expect(record.status).toBe('received');
    expect(record.receivedAt).toBeDefined();
    expect(ms(record.receivedAt)).toBeLessThanOrEqual(ms(accepted.timestamp) ?? 0);
  });

  it('received -> executing at execution start: the started timestamp is recorded', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock to startTime');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(window.startTime);
    const record = await statusOf(target, deviceId, id);
    expect(record.status).toBe('executing');
    expect(ms(record.startedAt)).toBeGreaterThanOrEqual(ms(record.receivedAt) ?? Infinity);
    expect(ms(record.startedAt)).toBeGreaterThanOrEqual(ms(window.startTime) ?? Infinity);
    expect(ms(record.startedAt)).toBeLessThan(ms(window.endTime) ?? 0);
  });

  it('executing -> completed at end of lifecycle: the completed timestamp is recorded', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock to endTime');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(window.startTime);
    expect((await statusOf(target, deviceId, id)).status).toBe('executing');
    await admin.setClock(window.endTime);
    const record = await statusOf(target, deviceId, id);
    expect(record.status).toBe('completed');
    expect(ms(record.completedAt)).toBeGreaterThanOrEqual(ms(record.startedAt) ?? Infinity);
    expect(ms(record.completedAt)).toBeGreaterThanOrEqual(ms(window.endTime) ?? Infinity);
    expect(record.cancellReason).toBeUndefined();
  });

  it('received -> cancelled by cancel operation while pending: cancelled timestamp and reason are recorded', async () => {
    const deviceId = target.config.deviceId;
    const id = await submit(target, deviceId, target.window(0, HOUR_MS));
    const response = await target.upstream.cancelCommand(deviceId, id);
    expect(response.status).toBe(200);
    const answer = CancelAnswerSchema.parse(response.body);
    expect(answer).toMatchObject({ message: 'Command cancelled', commandId: id });
    await target.nextMinute();
    const record = await statusOf(target, deviceId, id);
    expect(record).toMatchObject({ id, status: 'cancelled', cancellReason: 'manuallyCancel' });
    expect(ms(record.cancelledAt)).toBe(ms(answer.timestamp));
    expect(ms(record.cancelledAt)).toBeGreaterThanOrEqual(ms(record.receivedAt) ?? Infinity);
    expect(record.startedAt).toBeUndefined();
  });

  it('executing -> cancelled by cancel operation while executing: cancelled timestamp and reason are recorded', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock into the window');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(window.startTime);
    const response = await target.upstream.cancelCommand(deviceId, id);
    expect(response.status).toBe(200);
    const record = await statusOf(target, deviceId, id);
    expect(record).toMatchObject({ status: 'cancelled', cancellReason: 'manuallyCancel' });
    expect(ms(record.cancelledAt)).toBeGreaterThanOrEqual(ms(record.startedAt) ?? Infinity);
    expect(record.completedAt).toBeUndefined();
    await admin.setClock(window.endTime);
    expect((await statusOf(target, deviceId, id)).status).toBe('cancelled');
  });
});

describe('rules (docs/upstream.md, Lifecycle)', () => {
  it('rule 1: a completed command cannot be cancelled; the cancel request returns a conflict', async (context) => {
    const admin = target.requireAdmin(context, 'let a command complete');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(window.endTime);
    expect((await statusOf(target, deviceId, id)).status).toBe('completed');
    expectError(await target.upstream.cancelCommand(deviceId, id), 409, 'COMMAND_NOT_CANCELLABLE');
    await target.nextMinute();
    expect((await statusOf(target, deviceId, id)).status).toBe('completed');
  });

  it('rule 1 (docs/upstream.md, Commands): a cancelled command cannot be cancelled again either', async () => {
    const deviceId = target.config.deviceId;
    const id = await submit(target, deviceId, target.window(0, HOUR_MS));
    expect((await target.upstream.cancelCommand(deviceId, id)).status).toBe(200);
    await target.nextMinute();
    expectError(await target.upstream.cancelCommand(deviceId, id), 409, 'COMMAND_NOT_CANCELLABLE');
  });

  it('rule 2 (docs/upstream.md, Decisions): an overlapping new command is rejected at once; the existing one is neither replaced nor cancelled; cancel, then resubmit works', async () => {
    const deviceId = target.config.deviceId;
    const window = target.window(0, 2 * HOUR_MS);
    const existing = await submit(target, deviceId, window);
    const before = await statusOf(target, deviceId, existing);
    await target.nextMinute();
    const overlapping = target.window(HOUR_MS, 2 * HOUR_MS);
    const refused = await target.upstream.submitCommand(deviceId, {
      powerControl: { targetBatteryPowerW: 1000 },
      ...overlapping,
    });
    const error = expectError(refused, 409, 'TIME_WINDOW_OVERLAP');
    expect(error.message).toContain(existing);
    expect(await statusOf(target, deviceId, existing)).toEqual(before);

    await target.nextMinute();
    expect((await target.upstream.cancelCommand(deviceId, existing)).status).toBe(200);
    const replacement = await submit(target, deviceId, overlapping, { targetBatteryPowerW: 1000 });
    await target.nextMinute();
    expect((await statusOf(target, deviceId, replacement)).status).toBe('received');
  });

  it('rule 3 (docs/upstream.md, Lifecycle): executing exactly when the clock reaches startTime, completed exactly at endTime', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock to the window edges');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const startMs = ms(window.startTime) ?? 0;
    const endMs = ms(window.endTime) ?? 0;
    const id = await submit(target, deviceId, window);
    await admin.setClock(iso(startMs - SECOND_MS));
    expect((await statusOf(target, deviceId, id)).status).toBe('received');
    await admin.setClock(window.startTime);
    expect((await statusOf(target, deviceId, id)).status).toBe('executing');
    await admin.setClock(iso(endMs - SECOND_MS));
    expect((await statusOf(target, deviceId, id)).status).toBe('executing');
    await admin.setClock(window.endTime);
    expect((await statusOf(target, deviceId, id)).status).toBe('completed');
  });

  it('rule 3 (docs/upstream.md, Lifecycle): a clock jump over the whole window runs both transitions, timestamps in order', async (context) => {
    const admin = target.requireAdmin(context, 'jump the clock');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(iso((ms(window.endTime) ?? 0) + HOUR_MS));
    const record = await statusOf(target, deviceId, id);
    expect(record.status).toBe('completed');
    expect(ms(record.receivedAt)).toBeLessThanOrEqual(ms(record.startedAt) ?? -Infinity);
    expect(ms(record.startedAt)).toBeLessThanOrEqual(ms(record.completedAt) ?? -Infinity);
  });
});

describe('cancellation reasons, spelled cancellReason (docs/upstream.md, Status record)', () => {
  it('manuallyCancel: explicitly cancelled', async () => {
    const deviceId = target.config.deviceId;
    const id = await submit(target, deviceId, target.window(0, HOUR_MS));
    await target.upstream.cancelCommand(deviceId, id);
    await target.nextMinute();
    expect(await statusOf(target, deviceId, id)).toMatchObject({
      status: 'cancelled',
      cancellReason: 'manuallyCancel',
    });
  });

  it('timeWindowOverlap: the effective window conflicts with another command (a batch, each device on its own)', async (context) => {
    const deviceId = target.config.deviceId;
    const secondDeviceId = target.requireSetting(
      context,
      target.config.secondDeviceId,
      'CONTRACT_SECOND_DEVICE_ID',
    );
    const window = target.window(0, HOUR_MS);
    const existing = await submit(target, deviceId, window);
    const batch = await submitBatch(target, [deviceId, secondDeviceId], window);
    await target.nextMinute();
    // The single command has the same window and was received moments earlier: leave it out.
    const [clashing] = (await batchCommandsOf(target, deviceId, window, batch)).filter(
      (command) => command.id !== existing,
    );
    const [clean] = await batchCommandsOf(target, secondDeviceId, window, batch);
    expect(clashing).toMatchObject({ status: 'cancelled', cancellReason: 'timeWindowOverlap' });
    expect(clashing?.id).not.toBe(existing);
    expect((await statusOf(target, deviceId, existing)).status).toBe('received');
    expect(clean?.status).toBe('received');
  });

  it('startTimeExpire: the start time expired before execution could begin (device offline past startTime + 60 s)', async (context) => {
    const admin = target.requireAdmin(context, 'take a device offline');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const startMs = ms(window.startTime) ?? 0;
    const id = await submit(target, deviceId, window);
    await admin.setDevice(deviceId, { online: false });
    await admin.setClock(iso(startMs + 30 * SECOND_MS));
    expect((await statusOf(target, deviceId, id)).status).toBe('received');
    await admin.setClock(iso(startMs + 61 * SECOND_MS));
    const record = await statusOf(target, deviceId, id);
    expect(record).toMatchObject({ status: 'cancelled', cancellReason: 'startTimeExpire' });
    expect(record.startedAt).toBeUndefined();
  });

  it('deviceFault: a device fault prevented execution (fault before start)', async (context) => {
    const admin = target.requireAdmin(context, 'fault a device');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setDevice(deviceId, { fault: true });
    await admin.setClock(window.startTime);
    const record = await statusOf(target, deviceId, id);
    expect(record).toMatchObject({ status: 'cancelled', cancellReason: 'deviceFault' });
    expect(record.completedAt).toBeUndefined();
  });

  it('deviceFault: a device fault stopped execution (fault while executing)', async (context) => {
    const admin = target.requireAdmin(context, 'fault a device');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(window.startTime);
    expect((await statusOf(target, deviceId, id)).status).toBe('executing');
    await admin.setDevice(deviceId, { fault: true });
    await admin.advanceClock(SECOND_MS);
    const record = await statusOf(target, deviceId, id);
    expect(record).toMatchObject({ status: 'cancelled', cancellReason: 'deviceFault' });
    expect(ms(record.cancelledAt)).toBeGreaterThanOrEqual(ms(record.startedAt) ?? Infinity);
  });

  it('notSupported: the target device does not support the requested control (accepted, ends at start)', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock to startTime');
    const { deviceId, property } = target.requireSetting(
      context,
      target.config.unsupportedControl,
      'CONTRACT_UNSUPPORTED_CONTROL',
    );
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window, { [property]: 1000 });
    expect((await statusOf(target, deviceId, id)).status).toBe('received');
    await admin.setClock(window.startTime);
    const record = await statusOf(target, deviceId, id);
    expect(record).toMatchObject({ status: 'cancelled', cancellReason: 'notSupported' });
  });
});
