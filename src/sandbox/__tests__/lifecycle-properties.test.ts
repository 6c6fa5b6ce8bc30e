import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toWindowMs, windowsOverlap } from '#domain/time-window.ts';
import { toStatusRecord } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { SandboxState } from '../state/sandbox-state.ts';
import { isActiveStatus, type StatusRecord } from '../vendor/schemas.ts';
import { ALPHA, openSmallState, START_MS } from './support/state-harness.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const DEVICES = ['DEV-A', 'DEV-B', 'DEV-C'] as const;

type Operation =
  | { kind: 'submit'; device: number; startMin: number; durationMin: number; export: boolean }
  | { kind: 'batch'; devices: number[]; startMin: number; durationMin: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'device'; device: number; online?: boolean; fault?: boolean };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constant('submit' as const),
    device: fc.nat(2),
    startMin: fc.integer({ min: -20, max: 240 }),
    durationMin: fc.integer({ min: 1, max: 180 }),
    export: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('batch' as const),
    devices: fc.uniqueArray(fc.nat(2), { minLength: 1, maxLength: 3 }),
    startMin: fc.integer({ min: -20, max: 240 }),
    durationMin: fc.integer({ min: 1, max: 180 }),
  }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('advance' as const),
    ms: fc.integer({ min: 0, max: 4 * 60 * MINUTE_MS }),
  }),
  fc.record(
    {
      kind: fc.constant('device' as const),
      device: fc.nat(2),
      online: fc.boolean(),
      fault: fc.boolean(),
    },
    { requiredKeys: ['kind', 'device'] },
  ),
);

async function allRecords(state: SandboxState): Promise<StatusRecord[]> {
  const range = {
    startTime: new Date(START_MS - DAY_MS).toISOString(),
    endTime: new Date(START_MS + 29 * DAY_MS).toISOString(),
    page: 1,
    size: 500,
  };
  const lists = await Promise.all(DEVICES.map((deviceId) => state.history(ALPHA, deviceId, range)));
  return lists.flatMap((list) => list.commands).map((command) => toStatusRecord(command));
}

const ms = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

function checkRecord(record: StatusRecord): void {
  const received = ms(record.receivedAt) ?? NaN;
  const started = ms(record.startedAt);
  const completed = ms(record.completedAt);
  const cancelled = ms(record.cancelledAt);
  switch (record.status) {
    case 'received':
      expect([started, completed, cancelled, record.cancellReason]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      break;
    case 'executing':
      expect(started).toBeDefined();
      expect([completed, cancelled, record.cancellReason]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
      break;
    case 'completed':
      expect(started).toBeDefined();
      expect(completed).toBe(ms(record.endTime));
      expect([cancelled, record.cancellReason]).toEqual([undefined, undefined]);
      break;
    case 'cancelled':
      expect(cancelled).toBeDefined();
      expect(record.cancellReason).toBeDefined();
      expect(completed).toBeUndefined();
      break;
  }
  if (started !== undefined) {
    expect(started).toBeGreaterThanOrEqual(received);
    expect(started).toBeGreaterThanOrEqual(ms(record.startTime) ?? NaN);
    expect(started).toBeLessThan(ms(record.endTime) ?? NaN);
  }
  const end = completed ?? cancelled;
  if (end !== undefined) {
    expect(end).toBeGreaterThanOrEqual(started ?? received);
  }
}

function checkNoActiveOverlap(records: StatusRecord[]): void {
  for (const deviceId of DEVICES) {
    const active = records.filter((r) => r.deviceId === deviceId && isActiveStatus(r.status));
    for (let i = 0; i < active.length; i += 1)
      for (let j = i + 1; j < active.length; j += 1) {
        const [a, b] = [active[i], active[j]];
        if (a && b)
          expect(windowsOverlap(toWindowMs(a), toWindowMs(b)), `${a.id} vs ${b.id}`).toBe(false);
      }
  }
}

async function apply(state: SandboxState, op: Operation, known: string[][]): Promise<void> {
  const nowMs = state.nowMs();
  const window = (startMin: number, durationMin: number) => ({
    startTime: new Date(nowMs + startMin * MINUTE_MS).toISOString(),
    endTime: new Date(nowMs + (startMin + durationMin) * MINUTE_MS).toISOString(),
  });
  try {
    switch (op.kind) {
      case 'submit': {
        const deviceId = DEVICES[op.device] ?? 'DEV-A';
        const accepted = await state.submit(ALPHA, deviceId, {
          powerControl: op.export ? { siteExportLimitW: 1000 } : { targetBatteryPowerW: -1000 },
          ...window(op.startMin, op.durationMin),
        });
        known.push([deviceId, accepted.id]);
        break;
      }
      case 'batch': {
        const { commands } = await state.submitBatch(ALPHA, {
          devices: op.devices.map((d) => DEVICES[d] ?? 'DEV-A'),
          command: {
            powerControl: { targetBatteryPowerW: 500 },
            ...window(op.startMin, op.durationMin),
          },
        });
        for (const command of commands) known.push([command.deviceId, command.id]);
        break;
      }
      case 'cancel': {
        const [deviceId, id] = known[op.pick % Math.max(1, known.length)] ?? [];
        if (deviceId && id) await state.cancel(ALPHA, deviceId, id);
        break;
      }
      case 'advance':
        await state.moveClock(nowMs + op.ms);
        break;
      case 'device':
        await state.setDeviceCondition(DEVICES[op.device] ?? 'DEV-A', op);
        break;
    }
  } catch (error) {
    // Refusals (overlap, ended window, not cancellable) are part of the game, nothing else is.
    if (!(error instanceof SandboxError) || error.status >= 500) throw error;
  }
}

describe('lifecycle properties (fast-check)', () => {
  it('never lets active windows of a device overlap, keeps timestamps ordered, and ends every command in exactly one final state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 40 }), async (operations) => {
        // The rate limit off: this is about the lifecycle, and the property reads every device's
        // history after each operation, far more often than the limit allows (it has its own
        // tests in rate-limit.test.ts).
        const state = await openSmallState({ deviceCallsPerMinute: 0 });
        await state.bindSite(ALPHA, 'SITE-1');
        const known: string[][] = [];
        const finals = new Map<string, StatusRecord>();
        for (const op of operations) {
          await apply(state, op, known);
          const records = await allRecords(state);
          checkNoActiveOverlap(records);
          for (const record of records) {
            checkRecord(record);
            const final = finals.get(record.id);
            if (final) expect(record).toEqual(final);
            else if (!isActiveStatus(record.status)) finals.set(record.id, record);
          }
        }
        for (const deviceId of DEVICES)
          await state.setDeviceCondition(deviceId, { online: true, fault: false });
        await state.moveClock(state.nowMs() + 2 * DAY_MS);
        const records = await allRecords(state);
        expect(records).toHaveLength(known.length);
        for (const record of records) {
          expect(isActiveStatus(record.status)).toBe(false);
          checkRecord(record);
        }
      }),
      { numRuns: 150 },
    );
  });
});
