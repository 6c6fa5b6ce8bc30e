import { beforeEach, describe, expect, it } from 'vitest';
import type { DeviceCommand } from '../../domain/command.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { SandboxState } from '../state/sandbox-state.ts';
import { ALPHA, BETA, openSmallState, START_MS } from './support/state-harness.ts';
import { startHarness } from './support/sandbox-harness.ts';

const HOUR_MS = 3_600_000;
const command = (offsetMs = HOUR_MS, watts = 1000): DeviceCommand => ({
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

const historyOf = (deviceId: string) =>
  state.history(ALPHA, deviceId, {
    startTime: new Date(START_MS).toISOString(),
    endTime: new Date(START_MS + 10 * HOUR_MS).toISOString(),
  });

describe('site binding is per client (spec 5 rule 5)', () => {
  it("does not give one client another client's binding", async () => {
    await state.bindSite(ALPHA, 'SITE-1');
    expect(await state.listSites(BETA)).toEqual([]);
    expect((await refusal(state.submit(BETA, 'DEV-A', command()))).code).toBe('site_not_bound');
    const accepted = await state.submit(ALPHA, 'DEV-A', command());
    expect((await refusal(state.status(BETA, 'DEV-A', accepted.id))).code).toBe('site_not_bound');
    await state.bindSite(BETA, 'SITE-1');
    expect((await state.status(BETA, 'DEV-A', accepted.id)).id).toBe(accepted.id);
  });
});

describe('batch submission (spec 2.5)', () => {
  beforeEach(async () => {
    await state.bindSite(ALPHA, 'SITE-1');
  });

  it('creates one received command per device, all carrying the batch ID', async () => {
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
    expect((await state.status(ALPHA, 'DEV-A', existing.id)).status).toBe('received');
  });

  it.each([
    ['an unknown device', ['DEV-A', 'NOPE'], command(), 'not_found'],
    [
      'an out-of-range value',
      ['DEV-A', 'DEV-B'],
      command(HOUR_MS, 9000),
      'capability_out_of_range',
    ],
    ['an ended window', ['DEV-A'], command(-2 * HOUR_MS), 'invalid_request'],
  ])('refuses the whole batch for %s and creates nothing', async (_what, devices, body, code) => {
    expect((await refusal(state.submitBatch(ALPHA, { devices, command: body }))).code).toBe(code);
    expect(await historyOf('DEV-A')).toEqual([]);
  });

  it('refuses the whole batch for a device of an unbound site', async () => {
    expect(
      (await refusal(state.submitBatch(BETA, { devices: ['DEV-A'], command: command() }))).code,
    ).toBe('site_not_bound');
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

describe('batch cancel (spec 2.5, 7)', () => {
  beforeEach(async () => {
    await state.bindSite(ALPHA, 'SITE-1');
  });

  it('answers one result per device, successes and failures mixed', async () => {
    const { batch, commands } = await state.submitBatch(ALPHA, {
      devices: ['DEV-A', 'DEV-B', 'DEV-C'],
      command: command(),
    });
    await state.cancel(ALPHA, 'DEV-B', commands[1]?.id ?? '');
    const response = await state.cancelBatch(ALPHA, batch.id);
    expect(response.batchCommandId).toBe(batch.id);
    expect(response.results.map((r) => [r.deviceId, r.success, r.status, r.error?.code])).toEqual([
      ['DEV-A', true, 'cancelled', undefined],
      ['DEV-B', false, 'cancelled', 'not_cancellable'],
      ['DEV-C', true, 'cancelled', undefined],
    ]);
  });

  it('fails a device whose site was unbound since with site_not_bound, and a completed one with not_cancellable', async () => {
    const { batch } = await state.submitBatch(ALPHA, { devices: ['DEV-A'], command: command() });
    await state.moveClock(START_MS + 2 * HOUR_MS);
    expect((await state.cancelBatch(ALPHA, batch.id)).results[0]).toMatchObject({
      success: false,
      status: 'completed',
      error: { code: 'not_cancellable' },
    });
    await state.unbindSite(ALPHA, 'SITE-1');
    expect((await state.cancelBatch(ALPHA, batch.id)).results[0]?.error?.code).toBe(
      'site_not_bound',
    );
  });

  it("answers 404 for an unknown batch and for another client's batch", async () => {
    const { batch } = await state.submitBatch(ALPHA, { devices: ['DEV-A'], command: command() });
    expect((await refusal(state.cancelBatch(ALPHA, 'batch_nope'))).code).toBe('not_found');
    expect((await refusal(state.cancelBatch(BETA, batch.id))).code).toBe('not_found');
  });
});

describe('batch over HTTP', () => {
  it('answers 400 naming devices for more than 50 devices, a repeated device or none', async () => {
    const sandbox = await startHarness();
    try {
      const token = await sandbox.boundToken('PLANT-EU-100');
      const nowMs = await sandbox.nowMs();
      const body = (devices: string[]) => ({
        devices,
        command: {
          powerControl: { targetBatteryPowerW: 1 },
          startTime: new Date(nowMs + HOUR_MS).toISOString(),
          endTime: new Date(nowMs + 2 * HOUR_MS).toISOString(),
        },
      });
      const ids = Array.from(
        { length: 51 },
        (_, i) => `BAT-EU-100-${String(i + 1).padStart(2, '0')}`,
      );
      for (const devices of [ids, ['BAT-EU-100-01', 'BAT-EU-100-01'], []]) {
        const response = await sandbox.call('POST', '/eu/devices/commands/batch', {
          token,
          json: body(devices),
        });
        expect(response.status).toBe(400);
        expect((response.body as { message: string }).message).toContain('devices');
      }
      const fifty = await sandbox.call('POST', '/eu/devices/commands/batch', {
        token,
        json: body(ids.slice(0, 50)),
      });
      expect(fifty.status).toBe(202);
      expect((fifty.body as { commands: unknown[] }).commands).toHaveLength(50);
    } finally {
      await sandbox.close();
    }
  });
});
