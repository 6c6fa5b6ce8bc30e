/**
 * The shared budget of upstream calls per device (docs/decisions/007-device-call-budget.md,
 * section 1) on PGlite and, with TEST_DATABASE_URL, PostgreSQL: slots granted up to the limit and
 * refused with the time the next frees, batches all or none, reads after queued changes, 429s
 * holding a device, per-region limits, and two instances on one PostgreSQL never spending one
 * slot twice.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { openDatabase, type DatabaseHandle } from '#infra/database.ts';
import { openBffStorage } from '../../db/storage.ts';
import { answeredCall } from './support/answered-call.ts';
import {
  DeviceBudgetStore,
  deviceBudgetsOf,
  MAX_BUSY_MS,
  STALLED_READ_MS,
} from '../device-budget-store.ts';
import { deviceReadState } from '../../db/schema.ts';
import { QueuedChangeStore } from '../queued-change-store.ts';

const T = Date.parse('2026-11-25T14:00:00Z');
const s = (seconds: number) => T + seconds * 1000;
const BUDGETS = deviceBudgetsOf({ eu: 2, au: 3 });
const command = {
  powerControl: { targetBatteryPowerW: 3000 },
  startTime: '2026-11-25T16:00:00Z',
  endTime: '2026-11-25T17:00:00Z',
};
/** A device ID no other test uses. */
const device = () => `BAT-${randomUUID().slice(0, 8)}`;

describe.each(DATABASE_KINDS)('the device budget on %s', (kind) => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  let budget: DeviceBudgetStore;
  let changes: QueuedChangeStore;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    handle = await testDb.open();
    await openBffStorage({ database: handle });
    budget = new DeviceBudgetStore(handle.db, BUDGETS);
    changes = new QueuedChangeStore(handle.db, budget);
  });
  afterAll(() => testDb.drop());

  // A call made with each slot is answered at once, unless a test says otherwise.
  const reserve = (deviceIds: string[], nowMs: number, kind: 'control' | 'read' = 'control') =>
    answeredCall(budget, { region: 'eu', deviceIds, kind, nowMs });

  it('grants a device its limit in a window, then says when the next slot frees', async () => {
    const id = device();
    expect(await reserve([id], s(0))).toMatchObject({ granted: true, atMs: s(0) });
    expect(await reserve([id], s(20))).toMatchObject({ granted: true });
    expect(await reserve([id], s(30))).toEqual({
      granted: false,
      reason: 'no_slot',
      nextFreeAtMs: s(60),
    });
    expect(await reserve([id], s(60) - 1)).toMatchObject({ granted: false });
    expect(await reserve([id], s(60))).toMatchObject({ granted: true });
  });

  it("never lets a read take a device's last free call, so a change can follow at once", async () => {
    const id = device();
    expect(await reserve([id], s(0), 'read')).toMatchObject({ granted: true });
    expect(await reserve([id], s(10), 'read')).toEqual({
      granted: false,
      reason: 'no_slot',
      nextFreeAtMs: s(60),
    });
    expect(await reserve([id], s(10))).toMatchObject({ granted: true });
    const other = device();
    expect(await reserve([other], s(0))).toMatchObject({ granted: true });
    expect(await reserve([other], s(1), 'read')).toMatchObject({ granted: false });
    expect(await reserve([other], s(60), 'read')).toMatchObject({ granted: true });
  });

  it('takes a batch on all its devices or on none', async () => {
    const [free, full] = [device(), device()];
    await reserve([full], s(0));
    await reserve([full], s(10));
    expect(await reserve([free, full], s(15))).toEqual({
      granted: false,
      reason: 'no_slot',
      nextFreeAtMs: s(60),
    });
    // Nothing was taken of the free device: it still has both slots.
    const [state] = await budget.stateOf('eu', [free], s(15));
    expect(state).toMatchObject({ freeNow: 2, freesAtMs: [] });
    const batch = await reserve([free, full], s(60));
    expect(batch).toMatchObject({ granted: true });
    expect(batch.granted && batch.slotIds).toHaveLength(2);
  });

  it('lets a queued change of a device go before reads and calls made after it', async () => {
    const id = device();
    await reserve([id], s(0));
    await reserve([id], s(5));
    const queued = await changes.create({
      id: randomUUID(),
      owner: { region: 'eu', clientId: 'demo-eu' },
      change: {
        kind: 'submit',
        steps: [{ call: 'submit', deviceId: id, command, idempotencyKey: randomUUID() }],
      },
      nowMs: s(10),
    });
    expect(queued).toMatchObject({ queued: true });
    const changeId = queued.queued ? queued.row.id : '';
    // Its slot frees at s(60): a read then still waits for the change, and after it until a
    // change could follow the read (s(65) frees one call, the change's own s(120) the other).
    expect(await reserve([id], s(60), 'read')).toEqual({
      granted: false,
      reason: 'changes_waiting',
      changeIds: [changeId],
      nextFreeAtMs: s(120),
    });
    expect(await reserve([id], s(60))).toMatchObject({ reason: 'changes_waiting' });
    const seq = queued.queued ? queued.row.seq : 0;
    expect(
      await budget.reserve({
        region: 'eu',
        deviceIds: [id],
        kind: 'control',
        nowMs: s(60),
        change: { id: changeId, seq },
      }),
    ).toMatchObject({ granted: true });
  });

  it("keeps a background read out of the way of the read model's read due within the window", async () => {
    const id = device();
    const readState = (values: { nextReadAt?: Date; leaseUntil?: Date; bound?: boolean }) =>
      handle.db
        .insert(deviceReadState)
        .values({
          region: 'eu',
          clientId: 'demo-eu',
          deviceId: id,
          updatedAt: new Date(T),
          ...values,
        })
        .onConflictDoUpdate({
          target: [deviceReadState.region, deviceReadState.clientId, deviceReadState.deviceId],
          set: { nextReadAt: null, leaseUntil: null, bound: true, ...values },
        });
    const background = (nowMs: number) =>
      answeredCall(budget, {
        region: 'eu',
        deviceIds: [id],
        kind: 'read',
        nowMs,
        background: true,
      });
    // A batch's confirming read is due in 20 s: the background read waits until a window after it.
    await readState({ nextReadAt: new Date(s(20)) });
    expect(await background(s(0))).toEqual({
      granted: false,
      reason: 'reads_due',
      nextFreeAtMs: s(80),
    });
    // The read model's own read is not held back, and goes at once.
    expect(await reserve([id], s(20), 'read')).toMatchObject({ granted: true });
    // A read under way holds it too.
    await readState({ leaseUntil: new Date(s(100)) });
    expect(await background(s(90))).toMatchObject({ granted: false, reason: 'reads_due' });
    // Next read in half an hour: the background read goes.
    await readState({ nextReadAt: new Date(s(1800)) });
    expect(await background(s(90))).toMatchObject({ granted: true });
    // A read long overdue (the read model cannot read the device) holds nothing, nor does an unbound device's.
    const stalled = device();
    await handle.db.insert(deviceReadState).values([
      {
        region: 'eu',
        clientId: 'demo-eu',
        deviceId: stalled,
        updatedAt: new Date(T),
        nextReadAt: new Date(s(0) - STALLED_READ_MS - 1),
      },
    ]);
    expect(
      await answeredCall(budget, {
        region: 'eu',
        deviceIds: [stalled],
        kind: 'read',
        nowMs: s(0),
        background: true,
      }),
    ).toMatchObject({ granted: true });
    await readState({ bound: false, nextReadAt: new Date(s(3600)) });
    expect(await background(s(3600) - 1000)).toMatchObject({ granted: true });
  });

  it('holds the slot of a call not answered yet as though it arrived a window later, then from its answer', async () => {
    const id = device();
    // A slow call taken at s(0), on its way still; a second one answered at once at s(10).
    const slow = await budget.reserve({
      region: 'eu',
      deviceIds: [id],
      kind: 'control',
      nowMs: s(0),
    });
    await reserve([id], s(10));
    // A window after the slow one was taken it may not have arrived yet: it holds its slot
    // (counted from s(60), the latest it can arrive), so the next call waits for s(10)'s.
    expect(
      await budget.reserve({ region: 'eu', deviceIds: [id], kind: 'control', nowMs: s(60) }),
    ).toEqual({
      granted: false,
      reason: 'no_slot',
      nextFreeAtMs: s(70),
    });
    expect((await budget.stateOf('eu', [id], s(61)))[0]).toMatchObject({
      freesAtMs: [s(70), s(120)],
    });
    // Answered at s(63): it arrived by then, and holds its slot until s(123).
    await budget.settle(slow.granted ? slow.slotIds : [], s(63));
    expect((await budget.stateOf('eu', [id], s(64)))[0]).toMatchObject({
      freesAtMs: [s(70), s(123)],
    });
    expect(await reserve([id], s(70))).toMatchObject({ granted: true });
    expect(await reserve([id], s(122))).toMatchObject({ granted: false, nextFreeAtMs: s(123) });
  });

  it('holds a device the upstream answered 429 for until its Retry-After, never shorter', async () => {
    const id = device();
    await budget.markBusy('eu', [id], s(40), s(0));
    await budget.markBusy('eu', [id], s(20), s(1));
    expect(await reserve([id], s(39))).toEqual({
      granted: false,
      reason: 'no_slot',
      nextFreeAtMs: s(40),
    });
    expect(await reserve([id], s(40))).toMatchObject({ granted: true });
  });

  it('forgets every spent call and busy mark when told the upstream forgot them', async () => {
    const spent = device();
    const busy = device();
    await reserve([spent], s(0));
    await reserve([spent], s(1));
    await budget.markBusy('eu', [busy], s(50), s(0));
    expect(await reserve([spent], s(2))).toMatchObject({ granted: false });
    await budget.forgetAll();
    expect(await reserve([spent], s(2))).toMatchObject({ granted: true });
    expect(await reserve([busy], s(2))).toMatchObject({ granted: true });
  });

  it('cuts a busy mark to an hour', async () => {
    const id = device();
    await budget.markBusy('eu', [id], s(10 * 3600), s(0));
    expect(await reserve([id], s(0))).toMatchObject({ nextFreeAtMs: s(0) + MAX_BUSY_MS });
  });

  it('holds a slot for a window after the call was answered', async () => {
    const id = device();
    const first = await reserve([id], s(0));
    await reserve([id], s(1));
    await budget.settle(first.granted ? first.slotIds : [], s(8));
    expect(await reserve([id], s(60))).toEqual({
      granted: false,
      reason: 'no_slot',
      nextFreeAtMs: s(61),
    });
    expect(await reserve([id], s(61))).toMatchObject({ granted: true });
    expect(await reserve([id], s(68))).toMatchObject({ granted: true });
  });

  it('keeps each region to its own limit', async () => {
    const id = device();
    for (const second of [0, 1, 2])
      expect(
        await budget.reserve({ region: 'au', deviceIds: [id], kind: 'control', nowMs: s(second) }),
      ).toMatchObject({ granted: true });
    expect(
      await budget.reserve({ region: 'au', deviceIds: [id], kind: 'control', nowMs: s(3) }),
    ).toMatchObject({ granted: false });
    // The same device ID in the other region is another device.
    expect(await reserve([id], s(3))).toMatchObject({ granted: true });
  });

  it('forgets slots taken before the upstream clock went back, and prunes old ones', async () => {
    const id = device();
    await reserve([id], s(3600));
    await reserve([id], s(3601));
    expect(await reserve([id], s(0))).toMatchObject({ granted: true });
    await budget.prune(s(7200));
    expect(await budget.stateOf('eu', [id], s(7200))).toEqual([
      { deviceId: id, freeNow: 2, freesAtMs: [], waitingChangeIds: [] },
    ]);
  });

  it('never spends the last slot twice when two stores race for it', async () => {
    // A second pool on the same database (PostgreSQL: another instance); PGlite has one.
    const other =
      kind === 'postgres'
        ? await openDatabase({
            dataDir: testDb.dataDir,
            databaseUrl: `${testDb.databaseUrl ?? ''}?application_name=second-instance`,
          })
        : handle;
    try {
      const second = new DeviceBudgetStore(other.db, BUDGETS);
      for (let round = 0; round < 20; round += 1) {
        const [id, batchMate] = [device(), device()];
        await reserve([id], s(0));
        const results = await Promise.all([
          budget.reserve({ region: 'eu', deviceIds: [id], kind: 'control', nowMs: s(1) }),
          second.reserve({ region: 'eu', deviceIds: [batchMate, id], kind: 'read', nowMs: s(1) }),
          second.reserve({ region: 'eu', deviceIds: [id], kind: 'read', nowMs: s(1) }),
        ]);
        expect(results.filter((result) => result.granted)).toHaveLength(1);
        const [state] = await budget.stateOf('eu', [id], s(1));
        expect(state?.freeNow).toBe(0);
      }
    } finally {
      if (other !== handle) await other.close();
    }
  });
});
