/**
 * A verdict per device per command (docs/verification.md): planned from what the read model
 * learns, verified after the window with one budgeted telemetry read, kept beside the ledger.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { StatusRecord } from '#domain/command.ts';
import type { TelemetrySample } from '#domain/telemetry.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { openBffStorage } from '../../db/storage.ts';
import type { ReadModel } from '../../read-model/read-model.ts';
import type { DeviceAlarm, DeviceRange } from '../../upstream/upstream-api.ts';
import type { UpstreamCaller } from '../../upstream/upstream-caller.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '../../budget/device-budget-store.ts';
import { BudgetedTelemetry } from '../budgeted-telemetry.ts';
import { CommandVerification, samplingPeriodOf } from '../command-verification.ts';
import { VerdictStore, type VerdictKey } from '../verdict-store.ts';

const T = Date.parse('2026-11-29T12:00:00Z');
const MINUTE = 60_000;
const account = { region: 'eu', clientId: 'client' } as const;
const caller: UpstreamCaller = { id: 'c', region: 'eu', clientId: 'client', clientSecret: 's' };
const iso = (ms: number) => new Date(ms).toISOString();

/** A discharge of `targetW` over [startMs, endMs), completed. */
function command(deviceId: string, startMs: number, endMs: number, targetW = 3000): StatusRecord {
  return {
    id: `CMD-${randomUUID().slice(0, 8)}`,
    deviceId,
    powerControl: { targetBatteryPowerW: targetW },
    startTime: iso(startMs),
    endTime: iso(endMs),
    status: 'completed',
    receivedAt: iso(startMs - MINUTE),
    startedAt: iso(startMs),
    completedAt: iso(endMs),
  };
}

describe('verifying a device command after its window', () => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  let budget: DeviceBudgetStore;
  let store: VerdictStore;
  let nowMs = T;
  /** What each device's battery does at an instant: its power (W) and state of charge. */
  const behaviour = new Map<
    string,
    (atMs: number) => { batteryPowerW: number; socPercent: number }
  >();
  const steady = (batteryPowerW: number) => () => ({ batteryPowerW, socPercent: 50 });
  const reads: DeviceRange[] = [];
  const alarmReads: DeviceRange[] = [];
  const alarms = new Map<string, DeviceAlarm[]>();
  let verification: CommandVerification;

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite');
    handle = await testDb.open();
    await openBffStorage({ database: handle });
    budget = new DeviceBudgetStore(handle.db, deviceBudgetsOf({ eu: 2, au: 2 }));
    store = new VerdictStore(handle.db);
    await handle.db.execute(
      // Another account beside it: a claim takes its own account's secret, not any.
      `insert into bff.read_model_accounts (region, client_id, secret_ciphertext, seen_at) values ('eu', 'client', 'sealed', now()), ('au', 'another', 'other-sealed', now())`,
    );
    const telemetry = new BudgetedTelemetry({
      budget,
      upstreamNow: () => nowMs,
      upstream: {
        telemetryPage: async (_caller, range) => {
          reads.push(range);
          const battery = behaviour.get(range.deviceId) ?? steady(0);
          const samples: TelemetrySample[] = [];
          for (
            let atMs = Math.ceil(range.startMs / MINUTE) * MINUTE;
            atMs <= range.endMs;
            atMs += MINUTE
          )
            samples.push({ atMs, ...battery(atMs), gridPowerW: 0, pvPowerW: 0 });
          return { samples, more: false };
        },
        latestDataOf: () => Promise.reject(new Error('not expected')),
        alarmsPage: async (_caller, range) => {
          alarmReads.push(range);
          return { alarms: alarms.get(range.deviceId) ?? [], more: false };
        },
        configuration: () => Promise.reject(new Error('not expected')),
      },
    });
    const model = {
      callerOf: () => caller,
      store: { db: handle.db, commandsByIds: async () => new Map() },
    } as unknown as ReadModel;
    verification = new CommandVerification({
      store,
      model,
      telemetry,
      devices: async () => new Map(),
      now: () => nowMs,
      log: pino({ level: 'silent' }),
    });
  });
  afterAll(() => testDb.drop());

  /** What the queue does: claim what is due, take each claim, verify it. */
  async function runDue() {
    const leaseUntilMs = nowMs + 5 * MINUTE;
    const claimed = await store.claimDue(nowMs, leaseUntilMs, 100);
    const outcomes = [];
    for (const { key } of claimed) {
      const secret = await store.take(key, leaseUntilMs, nowMs + 5 * MINUTE);
      outcomes.push(secret ? await verification.verify(key, secret) : 'skipped');
    }
    return outcomes;
  }
  const keyOf = (record: StatusRecord): VerdictKey => ({
    ...account,
    deviceId: record.deviceId,
    commandId: record.id,
  });

  it('is due one sampling period after the window, reads it once, and keeps the verdict with its samples', async () => {
    nowMs = T;
    const deviceId = `BAT-${randomUUID().slice(0, 6)}`;
    behaviour.set(deviceId, steady(3000));
    const record = command(deviceId, T + 10 * MINUTE, T + 130 * MINUTE);
    await verification.plan({ account, records: [record], ledgerEntries: [] });
    reads.length = 0;

    nowMs = T + 130 * MINUTE + 59_000;
    expect(await runDue()).toEqual([]);
    nowMs = T + 131 * MINUTE;
    expect(await runDue()).toEqual(['verified']);
    // One read, from the sample before the window to its end.
    expect(reads).toEqual([{ deviceId, startMs: T + 9 * MINUTE, endMs: T + 130 * MINUTE }]);

    const row = await store.find(keyOf(record));
    expect(row?.verdict).toMatchObject({
      verdict: 'delivered',
      coverage: 1,
      samples: { expected: 120, present: 120, following: 120 },
      commandedEnergyWh: 6000,
      deliveredEnergyWh: 6000,
    });
    expect(row?.samples?.atMs).toHaveLength(120);
    // Stamped at the end of its minute: the window's first minute ends a minute after its start.
    expect(row?.samples?.atMs[0]).toBe(T + 11 * MINUTE);
    expect(row?.telemetryCalls).toBe(1);
    expect(row?.dueAtMs).toBeUndefined();

    const [answer] = await store.verdictsOf(account, deviceId, 10);
    expect(answer).toMatchObject({
      commandId: record.id,
      judgedFrom: iso(T + 10 * MINUTE),
      judgedTo: iso(T + 130 * MINUTE),
      samplingPeriodMs: MINUTE,
      result: { verdict: 'delivered' },
    });
    expect(answer?.samples?.batteryPowerW.every((watts) => watts === 3000)).toBe(true);

    // Learnt again unchanged (the next history read), it is not verified again.
    await verification.plan({ account, records: [record], ledgerEntries: [] });
    nowMs += MINUTE;
    expect(await runDue()).toEqual([]);
    expect(reads).toHaveLength(1);
  });

  it('judges a device that does not follow as not following', async () => {
    nowMs = T;
    const deviceId = `BAT-${randomUUID().slice(0, 6)}`;
    // Charging from its PV as in self-consumption, its state of charge rising: not held by a cut-off.
    behaviour.set(deviceId, (atMs) => ({
      batteryPowerW: -800,
      socPercent: 40 + (atMs - T) / (4 * MINUTE),
    }));
    const record = command(deviceId, T, T + 60 * MINUTE);
    await verification.plan({ account, records: [record], ledgerEntries: [] });
    nowMs = T + 61 * MINUTE;
    expect(await runDue()).toEqual(['verified']);
    expect((await store.find(keyOf(record)))?.verdict?.verdict).toBe('notFollowing');
  });

  it('gives a command cancelled before it started its verdict at once, without a read', async () => {
    nowMs = T;
    const deviceId = `BAT-${randomUUID().slice(0, 6)}`;
    const record: StatusRecord = {
      ...command(deviceId, T + 30 * MINUTE, T + 90 * MINUTE),
      status: 'cancelled',
      startedAt: undefined,
      completedAt: undefined,
      cancelledAt: iso(T),
      cancelReason: 'manuallyCancel',
    };
    delete record.startedAt;
    delete record.completedAt;
    reads.length = 0;
    await verification.plan({ account, records: [record], ledgerEntries: [] });
    expect(await runDue()).toEqual(['verified']);
    expect((await store.find(keyOf(record)))?.verdict).toMatchObject({
      verdict: 'cancelled',
      deliveredEnergyWh: null,
    });
    expect(reads).toEqual([]);
  });

  it('waits for the next read slot when the budget has none, never a blind retry, and reads once then', async () => {
    nowMs = T;
    const deviceId = `BAT-${randomUUID().slice(0, 6)}`;
    behaviour.set(deviceId, steady(3000));
    const record = command(deviceId, T, T + 30 * MINUTE);
    await verification.plan({ account, records: [record], ledgerEntries: [] });
    nowMs = T + 31 * MINUTE;
    // A change's call took one of the two, answered at once: the other is kept for the next change.
    const control = await budget.reserve({
      region: 'eu',
      deviceIds: [deviceId],
      kind: 'control',
      nowMs,
    });
    if (control.granted) await budget.settle(control.slotIds, nowMs);
    reads.length = 0;
    expect(await runDue()).toEqual(['waiting']);
    expect(reads).toEqual([]);
    const waiting = await store.find(keyOf(record));
    expect(waiting?.verdict).toBeUndefined();
    expect(waiting?.dueAtMs).toBeGreaterThan(nowMs);

    expect(await runDue()).toEqual([]);
    nowMs = waiting?.dueAtMs as number;
    expect(await runDue()).toEqual(['verified']);
    expect(reads).toHaveLength(1);
  });

  it("lists the alarms active when a command was cancelled for the device's fault, read at its next slot", async () => {
    nowMs = T;
    const deviceId = `BAT-${randomUUID().slice(0, 6)}`;
    behaviour.set(deviceId, steady(3000));
    const faultAtMs = T + 10 * MINUTE;
    alarms.set(deviceId, [
      {
        alarmCode: 'F042',
        alarmName: 'Battery Temperature High',
        level: 'fault',
        active: true,
        startMs: faultAtMs,
        endMs: undefined,
      },
      {
        alarmCode: 'N7',
        alarmName: 'Firmware notice',
        level: 'notice',
        active: false,
        startMs: T - 50 * MINUTE,
        endMs: T - 40 * MINUTE,
      },
    ]);
    const record: StatusRecord = {
      ...command(deviceId, T, T + 60 * MINUTE),
      status: 'cancelled',
      cancelledAt: iso(faultAtMs),
      cancelReason: 'deviceFault',
    };
    delete record.completedAt;
    await verification.plan({ account, records: [record], ledgerEntries: [] });
    reads.length = 0;
    alarmReads.length = 0;
    nowMs = faultAtMs + MINUTE;
    // The window's telemetry takes the minute's read slot; the alarms wait for the next.
    expect(await runDue()).toEqual(['waiting']);
    expect(reads).toEqual([{ deviceId, startMs: T - MINUTE, endMs: faultAtMs }]);
    nowMs = (await store.find(keyOf(record)))?.dueAtMs as number;
    expect(await runDue()).toEqual(['verified']);
    expect(reads).toHaveLength(1);
    expect(alarmReads).toHaveLength(1);
    expect((await store.find(keyOf(record)))?.verdict).toMatchObject({
      verdict: 'cancelled',
      samples: { present: 10 },
      alarms: [{ alarmCode: 'F042', alarmName: 'Battery Temperature High' }],
    });
  });

  it('skips a claim another check took over after its lease ran out', async () => {
    nowMs = T;
    const deviceId = `BAT-${randomUUID().slice(0, 6)}`;
    const record = command(deviceId, T, T + 10 * MINUTE);
    await verification.plan({ account, records: [record], ledgerEntries: [] });
    nowMs = T + 11 * MINUTE;
    const firstLease = nowMs + 5 * MINUTE;
    expect(await store.claimDue(nowMs, firstLease, 100)).toHaveLength(1);
    nowMs = firstLease;
    const secondLease = nowMs + 5 * MINUTE;
    expect(await store.claimDue(nowMs, secondLease, 100)).toHaveLength(1);
    expect(await store.take(keyOf(record), firstLease, nowMs + MINUTE)).toBeUndefined();
    expect(await store.take(keyOf(record), secondLease, nowMs + MINUTE)).toBe('sealed');
  });

  it("does not verify a window that ended over an hour before it was learnt (a newly bound site's past)", async () => {
    nowMs = T;
    const deviceId = `BAT-${randomUUID().slice(0, 6)}`;
    const past = command(deviceId, T - 3 * 60 * MINUTE, T - 61 * MINUTE);
    const recent = command(deviceId, T - 2 * 60 * MINUTE, T - 59 * MINUTE);
    await verification.plan({ account, records: [past, recent], ledgerEntries: [] });
    expect(await store.find(keyOf(past))).toBeUndefined();
    expect((await store.find(keyOf(recent)))?.dueAtMs).toBe(T - 58 * MINUTE);
  });

  it('reads the sampling period from the samples', () => {
    const at = (ms: number[]) =>
      ms.map((atMs) => ({ atMs, batteryPowerW: 0, socPercent: 0, gridPowerW: 0, pvPowerW: 0 }));
    expect(samplingPeriodOf(at([0, 300_000, 600_000, 1_200_000]))).toBe(300_000);
    expect(samplingPeriodOf(at([0, 60_000, 120_000]))).toBe(60_000);
    expect(samplingPeriodOf(at([0]))).toBeUndefined();
  });
});
