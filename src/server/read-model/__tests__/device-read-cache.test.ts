/**
 * The status polls' cache of the read model (src/server/read-model/device-read-cache.ts): what it
 * keeps is dropped when this instance writes the device and when another instance on the same
 * database announces a change of it, and a read that started before a change is never kept.
 * On PGlite and, with TEST_DATABASE_URL, PostgreSQL (two instances, two connections).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { StatusRecord } from '#domain/command.ts';
import { submittedRecord } from '#domain/read-model.ts';
import { slotOf } from '#domain/refresh-policy.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { openBffStorage } from '../../db/storage.ts';
import { AccountEvents } from '../../events/account-events.ts';
import type { Account } from '#domain/account.ts';
import { LedgerStore } from '../../ledger/ledger-store.ts';
import { SecretBox } from '../../session/secret-box.ts';
import { DeviceReadCache } from '../device-read-cache.ts';
import { ReadModel } from '../read-model.ts';
import { ReadModelStore } from '../read-model-store.ts';
import type { KnownCommand } from '../read-model-tables.ts';

const T = Date.parse('2026-11-25T14:00:00Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const log = pino({ level: process.env.TEST_LOG ?? 'silent' }) as unknown as FastifyBaseLogger;
const command = {
  powerControl: { targetBatteryPowerW: 3000 },
  startTime: iso(T + 10 * MIN),
  endTime: iso(T + 70 * MIN),
};
const record = (id: string, overrides: Partial<StatusRecord> = {}): StatusRecord => ({
  ...submittedRecord('BAT-1', command, { id, timestamp: iso(T) }),
  ...overrides,
});
const known = (id: string, overrides: Partial<StatusRecord> = {}): KnownCommand =>
  ({ record: record(id, overrides) }) as KnownCommand;
const state = (version: number) => ({ bound: true, version, readAt: null });

describe('the device read cache', () => {
  const account: Account = { region: 'eu', clientId: 'c1' };
  const other: Account = { region: 'eu', clientId: 'c2' };
  const keep = (cache: DeviceReadCache<KnownCommand>, epoch: number, c: KnownCommand) => {
    cache.keepState(epoch, account, 'BAT-1', state(1));
    cache.keepCommand(epoch, account, 'BAT-1', c);
  };

  it("keeps what was read, drops a written command or state alone, and a device's everything", () => {
    const cache = new DeviceReadCache<KnownCommand>();
    keep(cache, cache.epoch, known('cmd_1'));
    cache.keepCommand(cache.epoch, account, 'BAT-1', known('cmd_2'));
    expect(cache.status(account, 'BAT-1', 'cmd_1').command?.record.id).toBe('cmd_1');
    expect(cache.status(other, 'BAT-1', 'cmd_1').command).toBeUndefined();
    cache.drop(account, [{ kind: 'command', deviceId: 'BAT-1', commandId: 'cmd_1' }]);
    expect(cache.status(account, 'BAT-1', 'cmd_1').command).toBeUndefined();
    expect(cache.status(account, 'BAT-1', 'cmd_2').command).toBeDefined();
    cache.drop(account, [{ kind: 'state', deviceId: 'BAT-1' }]);
    expect(cache.status(account, 'BAT-1', 'cmd_1').state).toBeUndefined();
    expect(cache.status(account, 'BAT-1', 'cmd_2').command).toBeDefined();
    cache.keepState(cache.epoch, account, 'BAT-1', state(2));
    cache.drop(account, [{ kind: 'device', deviceId: 'BAT-1' }]);
    expect(cache.status(account, 'BAT-1', 'cmd_1').state).toBeUndefined();
    expect(cache.status(account, 'BAT-1', 'cmd_2').command).toBeUndefined();
  });

  it('does not keep a read that started before a drop of what it read', () => {
    const cache = new DeviceReadCache<KnownCommand>();
    const before = cache.epoch;
    cache.drop(account, [{ kind: 'command', deviceId: 'BAT-1', commandId: 'cmd_1' }]);
    keep(cache, before, known('cmd_1'));
    expect(cache.status(account, 'BAT-1', 'cmd_1').command).toBeUndefined();
    // The state was not dropped: it is kept.
    expect(cache.status(account, 'BAT-1', 'cmd_1').state?.state?.version).toBe(1);
    const later = cache.epoch;
    cache.drop(account, [{ kind: 'device', deviceId: 'BAT-1' }]);
    keep(cache, later, known('cmd_2'));
    expect(cache.status(account, 'BAT-1', 'cmd_1').state).toBeUndefined();
    expect(cache.status(account, 'BAT-1', 'cmd_2').command).toBeUndefined();
  });

  it('answers a command and its device state only for the account and device it was kept for', () => {
    const cache = new DeviceReadCache<KnownCommand>();
    keep(cache, cache.epoch, known('cmd_1'));
    expect(cache.status(account, 'BAT-1', 'cmd_1')).toMatchObject({
      command: { record: { id: 'cmd_1' } },
      state: { state: { version: 1 } },
    });
    expect(cache.status(account, 'BAT-2', 'cmd_1')).toEqual({
      command: undefined,
      state: undefined,
    });
    expect(cache.status(other, 'BAT-1', 'cmd_1').command).toBeUndefined();
    // The same ID kept for another account: each answers its own or none, never the other's.
    cache.keepCommand(cache.epoch, other, 'BAT-1', known('cmd_1', { status: 'executing' }));
    expect(cache.status(other, 'BAT-1', 'cmd_1').command?.record.status).toBe('executing');
    expect(cache.status(account, 'BAT-1', 'cmd_1').command).toBeUndefined();
    cache.drop(account, [{ kind: 'command', deviceId: 'BAT-1', commandId: 'cmd_1' }]);
    expect(cache.status(other, 'BAT-1', 'cmd_1').command?.record.status).toBe('executing');
  });

  it("drops every device of an account, only that account's, when no device is named", () => {
    const cache = new DeviceReadCache<KnownCommand>();
    keep(cache, cache.epoch, known('cmd_1'));
    cache.keepCommand(cache.epoch, other, 'BAT-1', known('cmd_1'));
    cache.dropAccount(account);
    expect(cache.status(account, 'BAT-1', 'cmd_1').command).toBeUndefined();
    expect(cache.status(account, 'BAT-1', 'cmd_1').state).toBeUndefined();
    expect(cache.status(other, 'BAT-1', 'cmd_1').command).toBeDefined();
    cache.clear();
    expect(cache.status(other, 'BAT-1', 'cmd_1').command).toBeUndefined();
  });

  it("never takes a device's version or a command's status back", () => {
    const cache = new DeviceReadCache<KnownCommand>();
    const epoch = cache.epoch;
    cache.keepState(epoch, account, 'BAT-1', state(3));
    cache.keepState(epoch, account, 'BAT-1', state(2));
    expect(cache.status(account, 'BAT-1', 'cmd_1').state?.state?.version).toBe(3);
    cache.keepCommand(epoch, account, 'BAT-1', known('cmd_1', { status: 'cancelled' }));
    cache.keepCommand(epoch, account, 'BAT-1', known('cmd_1'));
    expect(cache.status(account, 'BAT-1', 'cmd_1').command?.record.status).toBe('cancelled');
  });
});

describe.each(DATABASE_KINDS)('status reads from the cache on %s', (kind) => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  let account: Account;
  const clock = { nowMs: T };
  const box = new SecretBox(randomBytes(32));
  const started: AccountEvents[] = [];

  const instance = async (db: DatabaseHandle) => {
    const events = new AccountEvents({ handle: db, now: () => clock.nowMs, log });
    await events.start();
    started.push(events);
    return new ReadModel({
      store: new ReadModelStore(db.db),
      ledger: new LedgerStore(db.db),
      events,
      now: () => clock.nowMs,
      log,
      box,
    });
  };
  const cancellation = {
    deviceId: 'BAT-1',
    commandId: 'cmd_1',
    status: 'cancelled',
    cancelledAt: iso(T + MIN),
    cancelReason: 'manuallyCancel',
  } as const;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    handle = await testDb.open();
    await openBffStorage({ database: handle });
  });
  afterAll(async () => {
    for (const events of started) await events.close();
    await testDb.drop();
  });
  beforeEach(() => {
    clock.nowMs = T;
    account = { region: 'eu', clientId: `client-${randomUUID().slice(0, 8)}` };
  });

  it("answers this instance's own changes at once: a cancel, a new command, a read", async () => {
    const model = await instance(handle);
    await model.recordSubmitted(account, 'BAT-1', record('cmd_1'));
    expect((await model.status(account, 'BAT-1', 'cmd_1'))?.record.status).toBe('received');
    // Kept now; the cancel's transaction drops it.
    expect((await model.status(account, 'BAT-1', 'cmd_1'))?.device.version).toBe(1);
    await model.recordCancelled(account, cancellation);
    const cancelled = await model.status(account, 'BAT-1', 'cmd_1');
    expect(cancelled?.record.status).toBe('cancelled');
    expect(cancelled?.device.version).toBe(2);

    await model.recordSubmitted(
      account,
      'BAT-1',
      record('cmd_2', { startTime: iso(T + 80 * MIN), endTime: iso(T + 90 * MIN) }),
    );
    expect((await model.status(account, 'BAT-1', 'cmd_1'))?.device.version).toBe(3);

    // A read that changes nothing of the commands still moves the device's last read.
    clock.nowMs = T + 5 * MIN;
    await model.applyRead(account, 'BAT-1', {
      readAtMs: clock.nowMs,
      records: [],
      completeSlots: [slotOf(clock.nowMs)],
      complete: true,
    });
    expect((await model.status(account, 'BAT-1', 'cmd_2'))?.device.readAt).toBe(iso(clock.nowMs));
  });

  it('knows an unbound device as unbound at once, and every other instance once it heard of it', async () => {
    const a = await instance(handle);
    const b = await instance(handle);
    await a.recordSiteBound(account, { siteId: 'PLANT-1', deviceIds: ['BAT-1'] });
    await a.recordSubmitted(account, 'BAT-1', record('cmd_1'));
    // Both keep the device as bound (polled twice: the second answer is from memory).
    for (const model of [a, b, a, b]) expect(await model.isBound(account, 'BAT-1')).toBe(true);
    await a.recordSiteUnbound(account, 'PLANT-1');
    expect(await a.isBound(account, 'BAT-1')).toBe(false);
    // Well before the cache's own expiry (10 s): the announcement drops it.
    await expect.poll(() => b.isBound(account, 'BAT-1'), { timeout: 2_000 }).toBe(false);
    expect(await a.isBound(account, 'BAT-UNKNOWN')).toBe(false);
    await b.recordSiteBound(account, { siteId: 'PLANT-1', deviceIds: ['BAT-1'] });
    expect(await b.isBound(account, 'BAT-1')).toBe(true);
    await expect.poll(() => a.isBound(account, 'BAT-1'), { timeout: 2_000 }).toBe(true);
  });

  it('answers a change another instance announced, and never the older record after it', async () => {
    const second = await testDb.openSecondInstance();
    try {
      const a = await instance(handle);
      const b = await instance(second);
      await a.recordSubmitted(account, 'BAT-1', record('cmd_1'));
      // B reads it (and keeps it) before A's change.
      expect((await b.status(account, 'BAT-1', 'cmd_1'))?.record.status).toBe('received');
      expect((await b.status(account, 'BAT-1', 'cmd_1'))?.record.status).toBe('received');
      await a.recordCancelled(account, cancellation);
      // Once B heard of it, B answers the cancellation, and only it from then on.
      await expect
        .poll(async () => (await b.status(account, 'BAT-1', 'cmd_1'))?.record.status)
        .toBe('cancelled');
      for (let i = 0; i < 5; i++) {
        const answer = await b.status(account, 'BAT-1', 'cmd_1');
        expect(answer?.record.status).toBe('cancelled');
        expect(answer?.device.version).toBe(2);
      }
    } finally {
      for (const events of started.splice(0)) await events.close();
      if (second !== handle) await second.close();
    }
  });
});
