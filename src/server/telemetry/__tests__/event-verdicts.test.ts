/**
 * The verdicts of a batch's (or a fleet job's) device commands, and each device's recent verdicts
 * for the fleet picture, read from `command_verdicts` beside the read model's commands.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { StatusRecord } from '#domain/command.ts';
import { eventVerdictsOf } from '#domain/fleet-power.ts';
import { columnsOfRows } from '#domain/verdict-answer.ts';
import { verdictOf } from '#domain/verdict.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { openBffStorage } from '../../db/storage.ts';
import { deviceCommands } from '../../db/schema.ts';
import { verdictCommandOf } from '../command-verification.ts';
import { VerdictStore } from '../verdict-store.ts';

const START = Date.parse('2026-11-29T12:00:00Z');
const MINUTE = 60_000;
const END = START + 10 * MINUTE;
const account = { region: 'eu', clientId: 'client' } as const;
const iso = (ms: number) => new Date(ms).toISOString();

function record(deviceId: string, batchCommandId?: string): StatusRecord {
  return {
    id: `cmd_${deviceId}`,
    deviceId,
    ...(batchCommandId ? { batchCommandId } : {}),
    powerControl: { targetBatteryPowerW: 3000 },
    startTime: iso(START),
    endTime: iso(END),
    status: 'completed',
    receivedAt: iso(START - MINUTE),
    startedAt: iso(START),
    completedAt: iso(END),
  };
}

describe('verdicts of an event', () => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  let store: VerdictStore;

  /** The read model knows the command (of the batch); with `deliveredW`, it has its verdict. */
  async function known(deviceId: string, batchCommandId: string | undefined, deliveredW?: number) {
    const command = record(deviceId, batchCommandId);
    await handle.db.insert(deviceCommands).values({
      ...account,
      deviceId,
      commandId: command.id,
      status: command.status,
      windowStart: new Date(START),
      windowEnd: new Date(END),
      batchCommandId: batchCommandId ?? null,
      record: command,
      learntAt: new Date(START),
      updatedAt: new Date(START),
    });
    await store.plan(
      account,
      [{ record: command, windowStartMs: START, windowEndMs: END, dueAtMs: END + MINUTE }],
      START,
    );
    if (deliveredW === undefined) return;
    const samples = Array.from({ length: 10 }, (_, minute) => ({
      atMs: START + (minute + 1) * MINUTE,
      batteryPowerW: deliveredW,
      socPercent: 50,
      gridPowerW: 0,
      pvPowerW: 0,
    }));
    const verdict = verdictOf({
      command: verdictCommandOf(command),
      samples,
      samplingPeriodMs: MINUTE,
      device: { maxChargePowerW: 5000, maxDischargePowerW: 5000 },
    });
    await store.saveVerdict(
      { ...account, deviceId, commandId: command.id },
      {
        record: command,
        windowStartMs: START,
        windowEndMs: END,
        verdict,
        samplingPeriodMs: MINUTE,
        samples: columnsOfRows(samples),
        readToMs: END,
        calls: 1,
        computedAtMs: END + MINUTE,
      },
    );
  }

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite');
    handle = await testDb.open();
    await openBffStorage({ database: handle });
    store = new VerdictStore(handle.db);
    await known('BAT-1', 'batch_1', 3000);
    await known('BAT-2', 'batch_1', 0);
    await known('BAT-3', 'batch_1');
    await known('BAT-4', 'batch_2', 3000);
    await known('BAT-5', undefined, 0);
  });
  afterAll(async () => {
    await testDb.drop();
  });

  it("answers a batch's verdicts, its pending commands and its curve", async () => {
    const { knownCommands, records } = await store.verdictsOfBatches(account, ['batch_1']);
    expect(knownCommands).toBe(3);
    expect(
      records.map((item) => [item.deviceId, item.result.verdict, item.batchCommandId]),
    ).toEqual([
      ['BAT-1', 'delivered', 'batch_1'],
      ['BAT-2', 'notFollowing', 'batch_1'],
    ]);
    const answer = eventVerdictsOf(records, knownCommands);
    expect(answer).toMatchObject({ devices: 3, pending: 1, deliveredPercent: 50 });
    // The count the verification asks after each verdict, before reading them all.
    expect(await store.pendingOfBatch(account, 'batch_1')).toBe(answer.pending);
    expect(await store.pendingOfBatch(account, 'batch_2')).toBe(0);
    expect(await store.pendingOfBatch({ ...account, clientId: 'other' }, 'batch_1')).toBe(0);
    expect(answer.curve[0]).toMatchObject({ commandedW: 6000, deliveredW: 3000 });
  });

  it("gathers a fleet job's batches, and nothing of another account", async () => {
    const both = await store.verdictsOfBatches(account, ['batch_1', 'batch_2']);
    expect(both.knownCommands).toBe(4);
    expect(both.records).toHaveLength(3);
    const other = await store.verdictsOfBatches({ region: 'eu', clientId: 'other' }, ['batch_1']);
    expect(other).toEqual({ knownCommands: 0, records: [] });
  });

  it("lists each device's recent verdicts, newest first, for the fleet picture", async () => {
    const recent = await store.recentVerdictsOf(account, START);
    expect(recent.get('BAT-5')).toEqual([
      { verdict: 'notFollowing', commandId: 'cmd_BAT-5', endMs: END },
    ]);
    expect(recent.has('BAT-3')).toBe(false);
    expect((await store.recentVerdictsOf(account, END + 1)).size).toBe(0);
  });
});
