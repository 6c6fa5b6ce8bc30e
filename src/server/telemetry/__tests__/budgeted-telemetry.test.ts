/**
 * Telemetry reads inside the device budget (docs/decisions/007-device-call-budget.md, section 1):
 * a read slot per call, never the call a change could still follow, a 429 obeyed as a wait.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { TelemetrySample } from '#domain/telemetry.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { openBffStorage } from '../../db/storage.ts';
import { ProblemError } from '../../http/problem.ts';
import type { UpstreamCaller } from '../../upstream/upstream-caller.ts';
import type { DeviceRange } from '../../upstream/upstream-api.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '../../budget/device-budget-store.ts';
import { BudgetedTelemetry } from '../budgeted-telemetry.ts';

const T = Date.parse('2026-11-29T14:00:00Z');
const MINUTE = 60_000;
const caller: UpstreamCaller = { id: 'c', region: 'eu', clientId: 'x', clientSecret: 'y' };
const device = () => `BAT-${randomUUID().slice(0, 8)}`;
const sample = (atMs: number): TelemetrySample => ({
  atMs,
  batteryPowerW: 1000,
  socPercent: 50,
  gridPowerW: 0,
  pvPowerW: 0,
});

describe('telemetry reads that spend the device budget', () => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  let budget: DeviceBudgetStore;
  let nowMs = T;

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite');
    handle = await testDb.open();
    await openBffStorage({ database: handle });
    budget = new DeviceBudgetStore(handle.db, deviceBudgetsOf({ eu: 2, au: 2 }));
  });
  afterAll(() => testDb.drop());

  const reader = (
    upstream: Partial<ConstructorParameters<typeof BudgetedTelemetry>[0]['upstream']>,
  ) =>
    new BudgetedTelemetry({
      budget,
      upstreamNow: () => nowMs,
      upstream: {
        telemetryPage: () => Promise.reject(new Error('not expected')),
        latestDataOf: () => Promise.reject(new Error('not expected')),
        alarmsPage: () => Promise.reject(new Error('not expected')),
        configuration: () => Promise.reject(new Error('not expected')),
        ...upstream,
      },
    });

  it('reads a window of 8 h 20 min at 60 s in one call, and leaves the last call of the minute to changes', async () => {
    nowMs = T;
    const id = device();
    const ranges: DeviceRange[] = [];
    const telemetry = reader({
      telemetryPage: async (_caller, range) => {
        ranges.push(range);
        return { samples: [sample(range.startMs)], more: false };
      },
    });
    const window = { deviceId: id, fromMs: T - 500 * MINUTE, endMs: T, samplingPeriodMs: MINUTE };
    const read = await telemetry.history(caller, window);
    expect(read).toEqual({ samples: [sample(T - 500 * MINUTE)], readToMs: T, calls: 1 });
    expect(ranges).toEqual([{ deviceId: id, startMs: T - 500 * MINUTE, endMs: T }]);

    // The second call of the device's minute is kept for a change: no read takes it.
    const again = await telemetry.history(caller, window);
    expect(again).toMatchObject({ calls: 0, readToMs: window.fromMs, samples: [] });
    expect(again.nextFreeAtMs).toBeGreaterThan(nowMs);
    expect(ranges).toHaveLength(1);
    const control = await budget.reserve({
      region: 'eu',
      deviceIds: [id],
      kind: 'control',
      nowMs,
    });
    expect(control.granted).toBe(true);
  });

  it('reads a longer window a page of 500 samples per call, and goes on where it stopped', async () => {
    nowMs = T;
    const id = device();
    const ranges: DeviceRange[] = [];
    const telemetry = reader({
      telemetryPage: async (_caller, range) => {
        ranges.push(range);
        return { samples: [sample(range.startMs)], more: false };
      },
    });
    const window = { deviceId: id, fromMs: T - 1000 * MINUTE, endMs: T, samplingPeriodMs: MINUTE };
    const first = await telemetry.history(caller, window);
    expect(first).toMatchObject({ calls: 1, readToMs: T - 500 * MINUTE });
    expect(first.nextFreeAtMs).toBeDefined();

    nowMs = first.nextFreeAtMs as number;
    const rest = await telemetry.history(caller, { ...window, fromMs: first.readToMs });
    expect(rest).toEqual({ samples: [sample(T - 500 * MINUTE)], readToMs: T, calls: 1 });
    expect(ranges.map((range) => (range.endMs - range.startMs) / MINUTE)).toEqual([500, 500]);
  });

  it("obeys the vendor's 429: the device is busy until its Retry-After, the call not sent again", async () => {
    nowMs = T;
    const id = device();
    let calls = 0;
    const telemetry = reader({
      telemetryPage: async () => {
        calls += 1;
        throw new ProblemError(429, 'device_rate_limited', 'busy', {
          headers: { 'retry-after': '30' },
        });
      },
    });
    const read = await telemetry.history(caller, {
      deviceId: id,
      fromMs: T - MINUTE,
      endMs: T,
      samplingPeriodMs: MINUTE,
    });
    expect(read).toEqual({ samples: [], readToMs: T - MINUTE, calls: 0, nextFreeAtMs: T + 30_000 });
    expect(calls).toBe(1);
    // Busy: not even a control call goes before the Retry-After.
    const control = await budget.reserve({ region: 'eu', deviceIds: [id], kind: 'control', nowMs });
    expect(control).toMatchObject({ granted: false, nextFreeAtMs: T + 30_000 });
  });

  /** A reader whose `latestData/query` answers every device listed, each call's list kept. */
  const listingReader = () => {
    const listed: string[][] = [];
    const telemetry = reader({
      latestDataOf: async (_caller, deviceIds) => {
        listed.push([...deviceIds]);
        return new Map(deviceIds.map((id) => [id, sample(T)]));
      },
    });
    return { listed, telemetry };
  };

  it('lists in latestData/query only the devices with a read slot, one call per 100 devices', async () => {
    nowMs = T;
    const ids = Array.from({ length: 150 }, device);
    const spent = ids[3] as string;
    await budget.reserve({ region: 'eu', deviceIds: [spent], kind: 'read', nowMs });
    const { listed, telemetry } = listingReader();
    const snapshot = await telemetry.latest(caller, ids);
    expect(snapshot.calls).toBe(2);
    expect(listed.map((chunk) => chunk.length)).toEqual([100, 49]);
    expect(listed.flat()).not.toContain(spent);
    expect(snapshot.samples.size).toBe(149);
    expect([...snapshot.deferred.keys()]).toEqual([spent]);
    expect(snapshot.deferred.get(spent)).toBeGreaterThan(nowMs);
  });

  it('fills each latestData/query call with devices that have a slot: deferred ones leave no gap', async () => {
    nowMs = T;
    const ids = Array.from({ length: 300 }, device);
    // 40 of every 100 have their budget spent (the read model's reads due at the window's end).
    const spent = ids.filter((_, i) => i % 100 < 40);
    for (const id of spent)
      await budget.reserve({ region: 'eu', deviceIds: [id], kind: 'read', nowMs });
    const { listed, telemetry } = listingReader();
    const snapshot = await telemetry.latest(caller, ids);
    expect(listed.map((chunk) => chunk.length)).toEqual([100, 80]);
    expect(snapshot.calls).toBe(2);
    expect(new Set(listed.flat())).toEqual(new Set(ids.filter((id) => !spent.includes(id))));
    expect(new Set(snapshot.deferred.keys())).toEqual(new Set(spent));
  });
});
