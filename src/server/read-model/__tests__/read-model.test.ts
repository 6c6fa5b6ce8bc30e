/**
 * The read model's storage (docs/architecture.md, Read model) on PGlite and, with
 * TEST_DATABASE_URL, PostgreSQL: versions (a new command and a cancellation bump them, the
 * lifecycle does not), history views that ask for unread ranges, batch confirmation from reads,
 * notifications of what the reads learn, the controls a device lacks, and two instances sharing
 * the due devices without reading one twice.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { StatusRecord } from '#domain/command.ts';
import type { SiteList } from '#domain/device.ts';
import { MAX_HISTORY_RANGE_MS } from '#domain/history.ts';
import { submittedRecord } from '#domain/read-model.ts';
import { DEFAULT_REFRESH_SETTINGS, slotOf } from '#domain/refresh-policy.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '../../budget/device-budget-store.ts';
import { openBffStorage } from '../../db/storage.ts';
import { AccountEvents } from '../../events/account-events.ts';
import type { Account } from '#domain/account.ts';
import { LedgerStore } from '../../ledger/ledger-store.ts';
import { jsonAnswer } from '../../ledger/ledger-answers.ts';
import { acceptedBatchOutcome, batchAnswerOf } from '../../ledger/batch-confirmation.ts';
import { Notifications } from '../../notifications/notifications.ts';
import { SecretBox } from '../../session/secret-box.ts';
import { notSignedIn } from '../../http/problem.ts';
import type { UpstreamApi } from '../../upstream/upstream-api.ts';
import { DeviceReads } from '../device-reads.ts';
import { ReadModel } from '../read-model.ts';
import { ReadModelStore } from '../read-model-store.ts';

const T = Date.parse('2026-11-25T14:00:00Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const log = pino({ level: process.env.TEST_LOG ?? 'silent' }) as unknown as FastifyBaseLogger;
const ada = { person: { kind: 'named', name: 'Ada' }, name: 'Ada' } as const;
const command = {
  powerControl: { targetBatteryPowerW: 3000 },
  startTime: iso(T + 10 * MIN),
  endTime: iso(T + 70 * MIN),
};

describe.each(DATABASE_KINDS)('the read model on %s', (kind) => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  let clock: { nowMs: number };
  let events: AccountEvents;
  let notifications: Notifications;
  let model: ReadModel;
  let ledger: LedgerStore;
  let account: Account;
  const box = new SecretBox(randomBytes(32));

  const build = (db: DatabaseHandle) => {
    const ownEvents = new AccountEvents({ handle: db, now: () => clock.nowMs, log });
    const ownNotifications = new Notifications({
      db: db.db,
      events: ownEvents,
      now: () => clock.nowMs,
      log,
    });
    return {
      events: ownEvents,
      notifications: ownNotifications,
      model: new ReadModel({
        store: new ReadModelStore(db.db),
        ledger: new LedgerStore(db.db),
        events: ownEvents,
        notifications: ownNotifications,
        now: () => clock.nowMs,
        log,
        box,
      }),
    };
  };

  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    handle = await testDb.open();
    await openBffStorage({ database: handle });
  });
  afterAll(() => testDb.drop());
  beforeEach(() => {
    clock = { nowMs: T };
    // Each test an account of its own: no rows shared.
    account = { region: 'eu', clientId: `client-${randomUUID().slice(0, 8)}` };
    ({ events, notifications, model } = build(handle));
    ledger = new LedgerStore(handle.db);
  });

  const deviceEvents = async () =>
    (await events.store.after(account, undefined, 0, 100)).filter(
      (stored) => stored.event.type === 'deviceCommandsChanged',
    );
  const record = (id: string, overrides: Partial<StatusRecord> = {}): StatusRecord => ({
    ...submittedRecord('BAT-1', command, { id, timestamp: iso(T) }),
    ...overrides,
  });
  /** The refresher of this test's model, run only when asked (`runDue`). */
  const readerOf = (upstream: UpstreamApi) =>
    new DeviceReads({
      model,
      budget: new DeviceBudgetStore(handle.db, deviceBudgetsOf({ eu: 2, au: 2 })),
      upstream,
      now: () => clock.nowMs,
      log,
      tickMs: 0,
    });
  const read = (records: StatusRecord[], atMs = clock.nowMs) =>
    model.applyRead(account, 'BAT-1', {
      readAtMs: atMs,
      records,
      completeSlots: [slotOf(atMs)],
      complete: true,
    });

  it('bumps the version for a new command and a cancellation, never for the lifecycle', async () => {
    expect(await model.recordSubmitted(account, 'BAT-1', record('cmd_1'), { madeBy: ada })).toBe(1);
    clock.nowMs = T + 10 * MIN + 5000;
    await read([record('cmd_1', { status: 'executing', startedAt: iso(T + 10 * MIN) })]);
    expect(await model.versionOf(account, 'BAT-1')).toBe(1);
    // Read again unchanged: nothing is published.
    await read([record('cmd_1', { status: 'executing', startedAt: iso(T + 10 * MIN) })]);
    clock.nowMs = T + 70 * MIN + 5000;
    await read([
      record('cmd_1', {
        status: 'completed',
        startedAt: iso(T + 10 * MIN),
        completedAt: iso(T + 70 * MIN),
      }),
    ]);
    expect(await model.versionOf(account, 'BAT-1')).toBe(1);
    // A read sent before the completion was learnt never takes it back.
    await read([record('cmd_1', { status: 'executing' })]);
    expect((await model.status(account, 'BAT-1', 'cmd_1'))?.record.status).toBe('completed');

    // A command made outside powerdeck, then cancelled by the device: two changes.
    await read([record('cmd_2', { startTime: iso(T + 80 * MIN), endTime: iso(T + 90 * MIN) })]);
    await model.recordCancelled(account, {
      deviceId: 'BAT-1',
      commandId: 'cmd_2',
      status: 'cancelled',
      cancelledAt: iso(clock.nowMs),
      cancelReason: 'manuallyCancel',
    });
    expect(await model.versionOf(account, 'BAT-1')).toBe(3);
    const changes = await model.changesSince(account, 'BAT-1', 1);
    expect(changes).toMatchObject({ sinceVersion: 1, version: 3, complete: true });
    expect(changes.changes.map((c) => [c.version, c.kind, c.commandId, c.madeBy])).toEqual([
      [2, 'commandAdded', 'cmd_2', undefined],
      [3, 'commandCancelled', 'cmd_2', undefined],
    ]);
    // Ada's own submission does not make Ada's view stale.
    expect(
      (await model.changesSince(account, 'BAT-1', 0, { exceptBy: ada.person })).changes,
    ).toHaveLength(2);

    const published = await deviceEvents();
    expect(published.map((stored) => stored.event.data)).toEqual([
      { deviceIds: ['BAT-1'], versions: { 'BAT-1': 1 } },
      { deviceIds: ['BAT-1'], versions: { 'BAT-1': 1 } },
      { deviceIds: ['BAT-1'], versions: { 'BAT-1': 1 } },
      { deviceIds: ['BAT-1'], versions: { 'BAT-1': 2 } },
      { deviceIds: ['BAT-1'], versions: { 'BAT-1': 3 } },
    ]);
  });

  it('answers the first poll of a command it just learnt from memory, as committed', async () => {
    await model.recordSubmitted(account, 'BAT-1', record('cmd_1'), { madeBy: ada });
    clock.nowMs = T + 10 * MIN + 5000;
    await read([record('cmd_1', { status: 'executing', startedAt: iso(T + 10 * MIN) })]);
    const store = model.store;
    const reads: string[][] = [];
    const commandsByIds = store.commandsByIds.bind(store);
    store.commandsByIds = (tx, owner, deviceId, ids) => {
      reads.push([...ids]);
      return commandsByIds(tx, owner, deviceId, ids);
    };
    try {
      expect((await model.status(account, 'BAT-1', 'cmd_1'))?.record.status).toBe('executing');
      expect(reads).toEqual([]);
      // Who sent it stays as first learnt: the row as it stands, not as the read wrote it.
      expect(store.cache.status(account, 'BAT-1', 'cmd_1').command?.madeByName).toBe('Ada');

      // A transaction that rolls back keeps nothing of what it wrote.
      const rolledBack = store.transaction(async (tx) => {
        await store.writeCommand(tx, account, record('cmd_1', { status: 'completed' }), T);
        throw new Error('rolled back');
      });
      await expect(rolledBack).rejects.toThrow('rolled back');
      expect((await model.status(account, 'BAT-1', 'cmd_1'))?.record.status).toBe('executing');
      expect(reads).toEqual([['cmd_1']]);
    } finally {
      store.commandsByIds = commandsByIds;
    }
  });

  it('answers history from what it holds and asks for the ranges never read', async () => {
    await model.recordSubmitted(account, 'BAT-1', record('cmd_1'));
    const now = slotOf(T);
    const view = await model.history(account, 'BAT-1', {
      startMs: T - MIN,
      endMs: T + 2 * 3_600_000,
    });
    expect(view).toMatchObject({ version: 1, historyPending: true });
    expect(view.commands.map((c) => c.id)).toEqual(['cmd_1']);
    const state = await model.stateOf(account, 'BAT-1');
    expect(state?.slotsRequested).toEqual([now]);
    expect(state?.nextReadAt?.getTime()).toBe(T);

    await read([record('cmd_1')]);
    const after = await model.history(account, 'BAT-1', { startMs: T - MIN, endMs: T + MIN });
    expect(after.historyPending).toBeUndefined();
    expect(after.readAt).toBe(iso(T));
    // Older history: asked for, answered at once with what is known.
    const older = await model.history(account, 'BAT-1', {
      startMs: now - MAX_HISTORY_RANGE_MS,
      endMs: now - MAX_HISTORY_RANGE_MS + MIN,
    });
    expect(older).toMatchObject({ commands: [], historyPending: true });
    expect((await model.stateOf(account, 'BAT-1'))?.nextReadReason).toBe('requestedHistory');
  });

  it('plans the next read after a read: every few minutes while open, just after a start', async () => {
    await model.recordSubmitted(account, 'BAT-1', record('cmd_1'));
    await read([record('cmd_1')]);
    let state = await model.stateOf(account, 'BAT-1');
    expect(state).toMatchObject({ hasOpenCommands: true, nextReadReason: 'openCommands' });
    expect(state?.nextReadAt?.getTime()).toBe(T + DEFAULT_REFRESH_SETTINGS.openEveryMs);
    clock.nowMs = T + 7 * MIN;
    await read([record('cmd_1')]);
    state = await model.stateOf(account, 'BAT-1');
    expect(state).toMatchObject({ hasOpenCommands: true, nextReadReason: 'windowStart' });
    expect(state?.nextReadAt?.getTime()).toBe(T + 10 * MIN + DEFAULT_REFRESH_SETTINGS.allowanceMs);
  });

  it('reads the devices of a site bound again: unbinding stopped their reads, binding plans them', async () => {
    const site = { siteId: 'PLANT-1', deviceIds: ['BAT-1'] };
    const list = (bound: boolean) => ({
      sites: bound
        ? [
            {
              siteId: 'PLANT-1',
              name: 'p',
              timeZone: 'UTC',
              clock: { source: 'offset' as const },
              devices: [{ deviceId: 'BAT-1', name: 'b', model: 'm', capabilities: {} }],
            },
          ]
        : [],
    });
    await model.recordSiteBound(account, site);
    await model.recordSubmitted(account, 'BAT-1', record('cmd_1'));
    await read([record('cmd_1')]);
    const planned = T + DEFAULT_REFRESH_SETTINGS.openEveryMs;
    expect((await model.stateOf(account, 'BAT-1'))?.nextReadAt?.getTime()).toBe(planned);

    // Unbound through the BFF, then bound again through it.
    await model.recordSiteUnbound(account, 'PLANT-1');
    expect(await model.stateOf(account, 'BAT-1')).toMatchObject({ bound: false, nextReadAt: null });
    await model.recordSiteBound(account, site);
    let state = await model.stateOf(account, 'BAT-1');
    expect(state?.bound).toBe(true);
    expect(state?.nextReadAt?.getTime()).toBe(planned);

    // Unbound and bound again elsewhere, as the site list tells it.
    await model.readSites(account, async () => list(false));
    expect(await model.stateOf(account, 'BAT-1')).toMatchObject({ bound: false, nextReadAt: null });
    await model.readSites(account, async () => list(true));
    state = await model.stateOf(account, 'BAT-1');
    expect(state?.bound).toBe(true);
    expect(state?.nextReadAt?.getTime()).toBe(planned);
  });

  it('applies no site list read before a bind or unbind another instance recorded', async () => {
    const other = build(handle).model;
    const site = (siteId: string, deviceId: string) => ({
      siteId,
      name: siteId,
      timeZone: 'UTC',
      clock: { source: 'offset' as const },
      devices: [{ deviceId, name: deviceId, model: 'm', capabilities: {} }],
    });
    /** A list read on `model` that is under way (the vendor asked) until `answer` is called. */
    const slowRead = async (list: SiteList) => {
      let answer = (): void => undefined;
      const answered = new Promise<void>((resolve) => {
        answer = resolve;
      });
      let asked = (): void => undefined;
      const underWay = new Promise<void>((resolve) => {
        asked = resolve;
      });
      const done = model.readSites(account, async () => {
        asked();
        await answered;
        return list;
      });
      await underWay;
      return { answer, done };
    };
    await model.recordSiteBound(account, { siteId: 'PLANT-1', deviceIds: ['BAT-1'] });
    // Read before the other instance binds PLANT-2: it lists PLANT-1 only.
    const stale = await slowRead({ sites: [site('PLANT-1', 'BAT-1')] });
    await other.recordSiteBound(account, { siteId: 'PLANT-2', deviceIds: ['BAT-2'] });
    stale.answer();
    expect((await stale.done).sites).toHaveLength(1);
    expect(await model.stateOf(account, 'BAT-2')).toMatchObject({ bound: true });

    // Read before the other instance unbinds PLANT-2: it still lists both.
    const both = { sites: [site('PLANT-1', 'BAT-1'), site('PLANT-2', 'BAT-2')] };
    const staleAgain = await slowRead(both);
    await other.recordSiteUnbound(account, 'PLANT-2');
    staleAgain.answer();
    await staleAgain.done;
    expect(await model.stateOf(account, 'BAT-2')).toMatchObject({ bound: false, nextReadAt: null });

    // A list read after the changes is applied.
    await model.readSites(account, async () => both);
    expect(await model.stateOf(account, 'BAT-2')).toMatchObject({ bound: true });
  });

  it("confirms a batch's device commands from the reads, and tells its sender of failed ones", async () => {
    const { row } = await ledger.begin({
      kind: 'batch',
      actor: { ...account, operatorName: 'Ada' },
      subject: { deviceIds: ['BAT-1', 'BAT-2'], request: { devices: ['BAT-1', 'BAT-2'], command } },
      requestHash: 'h',
      nowMs: T,
      leaseUntilMs: T + MIN,
    });
    const outcome = acceptedBatchOutcome(202, ['BAT-1', 'BAT-2']);
    await ledger.complete(row.id, {
      state: 'succeeded',
      outcome,
      answer: jsonAnswer(202, batchAnswerOf({ ...row, batchCommandId: 'b_1' }, outcome, iso(T))),
      batchCommandId: 'b_1',
      nowMs: T,
    });
    await model.recordBatchSent(
      account,
      {
        ledgerEntryId: row.id,
        batchCommandId: 'b_1',
        deviceIds: ['BAT-1', 'BAT-2'],
        command,
        answeredAt: iso(T),
      },
      { madeBy: ada },
    );
    const due = await model.stateOf(account, 'BAT-1');
    expect(due).toMatchObject({ nextReadReason: 'batchConfirmation' });
    expect(due?.nextReadAt?.getTime()).toBe(T + DEFAULT_REFRESH_SETTINGS.allowanceMs);

    clock.nowMs = T + 5000;
    // BAT-1 holds the batch's command, cancelled at once for overlap.
    await read([
      record('cmd_9', {
        status: 'cancelled',
        cancelledAt: iso(T),
        cancelReason: 'timeWindowOverlap',
      }),
    ]);
    const batchCommand = await model.status(account, 'BAT-1', 'cmd_9');
    expect(batchCommand?.record.batchCommandId).toBe('b_1');
    let entry = await ledger.findById(row.id);
    expect(entry?.outcome).toMatchObject({
      confirmation: 'confirming',
      commands: [{ deviceId: 'BAT-1', id: 'cmd_9' }],
      unconfirmed: [{ deviceId: 'BAT-2', state: 'confirming' }],
    });
    // BAT-2's history, read after the window ended, has no such command.
    clock.nowMs = T + 71 * MIN;
    await model.applyRead(account, 'BAT-2', {
      readAtMs: clock.nowMs,
      records: [],
      completeSlots: [slotOf(T)],
      complete: true,
    });
    entry = await ledger.findById(row.id);
    expect(entry?.outcome).toMatchObject({
      confirmation: 'incomplete',
      unconfirmed: [{ deviceId: 'BAT-2', state: 'notFound' }],
    });
    const page = await notifications.page(account, ada.person, { limit: 10 });
    expect(page.notifications.map((n) => n.title)).toEqual(['Batch: 2 of 2 devices failed']);
    expect((await model.stateOf(account, 'BAT-2'))?.nextReadReason).not.toBe('batchConfirmation');
  });

  it('gives a command to the batch that sent it, not to an older one of the same window still unconfirmed', async () => {
    /** A batch of BAT-1 alone, answered at `atMs`, recorded as the BFF records one. */
    const sendBatch = async (batchCommandId: string, atMs: number) => {
      const { row } = await ledger.begin({
        kind: 'batch',
        actor: { ...account, operatorName: 'Ada' },
        subject: { deviceIds: ['BAT-1'], request: { devices: ['BAT-1'], command } },
        requestHash: `h-${batchCommandId}`,
        nowMs: atMs,
        leaseUntilMs: atMs + MIN,
      });
      const outcome = acceptedBatchOutcome(202, ['BAT-1']);
      await ledger.complete(row.id, {
        state: 'succeeded',
        outcome,
        answer: jsonAnswer(202, batchAnswerOf({ ...row, batchCommandId }, outcome, iso(atMs))),
        batchCommandId,
        nowMs: atMs,
      });
      await model.recordBatchSent(
        account,
        {
          ledgerEntryId: row.id,
          batchCommandId,
          deviceIds: ['BAT-1'],
          command,
          answeredAt: iso(atMs),
        },
        { madeBy: ada },
      );
      return row.id;
    };
    // The first batch's command is gone before any read found it (the upstream was reset); the
    // same batch, sent again 15 s later, is the one whose command the read finds.
    const first = await sendBatch('b_first', T);
    const second = await sendBatch('b_second', T + 15_000);
    clock.nowMs = T + 20_000;
    await read([record('cmd_2', { receivedAt: iso(T + 15_000) })]);

    expect((await model.status(account, 'BAT-1', 'cmd_2'))?.record.batchCommandId).toBe('b_second');
    expect((await ledger.findById(second))?.outcome).toMatchObject({
      confirmation: 'confirmed',
      commands: [{ deviceId: 'BAT-1', id: 'cmd_2' }],
    });
    expect((await ledger.findById(first))?.outcome).toMatchObject({
      confirmation: 'confirming',
      commands: [],
    });
  });

  it('tells the sender of a command the device cancelled, and learns a control it lacks', async () => {
    const onlyExport = { ...command, powerControl: { siteExportLimitW: 1000 } };
    await model.recordSubmitted(
      account,
      'BAT-1',
      submittedRecord('BAT-1', onlyExport, { id: 'cmd_1', timestamp: iso(T) }),
      { madeBy: ada },
    );
    clock.nowMs = T + 10 * MIN + 5000;
    await read([
      {
        ...submittedRecord('BAT-1', onlyExport, { id: 'cmd_1', timestamp: iso(T) }),
        status: 'cancelled',
        cancelledAt: iso(T + 10 * MIN),
        cancelReason: 'notSupported',
      },
    ]);
    const page = await notifications.page(account, ada.person, { limit: 10 });
    expect(page.notifications.map((n) => n.title)).toEqual([
      'Command on BAT-1 cancelled: control not supported',
    ]);
    expect(await model.unsupportedControls(account)).toEqual(
      new Map([['BAT-1', new Set(['siteExportLimitW'])]]),
    );
    // A command learnt already cancelled (a first read of old history) is not news.
    await read([record('cmd_old', { status: 'cancelled', cancelReason: 'deviceFault' })]);
    expect(
      (await notifications.page(account, ada.person, { limit: 10 })).notifications,
    ).toHaveLength(1);
  });

  it("learns, pushes and notifies nothing of a read that ends after its device's site was unbound", async () => {
    await model.recordSiteBound(account, { siteId: 'PLANT-1', deviceIds: ['BAT-1'] });
    await model.recordSubmitted(account, 'BAT-1', record('cmd_1'), { madeBy: ada });
    const pushed = (await events.store.after(account, undefined, 0, 100)).length;
    // The read was sent before the unbind; its answer comes after it.
    await model.recordSiteUnbound(account, 'PLANT-1');
    const unbindPushes = (await events.store.after(account, undefined, 0, 100)).length;
    expect(unbindPushes).toBe(pushed + 1);
    clock.nowMs = T + 10 * MIN + 5000;
    await read([
      record('cmd_1', {
        status: 'cancelled',
        cancelledAt: iso(T + 10 * MIN),
        cancelReason: 'deviceFault',
      }),
      record('cmd_2', { startTime: iso(T + 80 * MIN), endTime: iso(T + 90 * MIN) }),
    ]);
    expect(await events.store.after(account, undefined, 0, 100)).toHaveLength(unbindPushes);
    expect((await notifications.page(account, ada.person, { limit: 10 })).notifications).toEqual(
      [],
    );
    expect(await model.versionOf(account, 'BAT-1')).toBe(1);
    expect((await model.status(account, 'BAT-1', 'cmd_1'))?.record.status).toBe('received');
    expect(await model.status(account, 'BAT-1', 'cmd_2')).toBeUndefined();
    expect(await model.stateOf(account, 'BAT-1')).toMatchObject({ bound: false, leaseUntil: null });
  });

  it('lets two instances share the due devices: each device read once', async () => {
    const other = await testDb.openSecondInstance();
    try {
      const devices = Array.from({ length: 12 }, (_, i) => `BAT-${i}`);
      await model.readSites(account, async () => ({
        sites: [
          {
            siteId: 'PLANT-1',
            name: 'p',
            timeZone: 'UTC',
            clock: { source: 'offset' },
            devices: devices.map((deviceId) => ({
              deviceId,
              name: deviceId,
              model: 'm',
              capabilities: {},
            })),
          },
        ],
      }));
      await model.rememberCaller({ id: 's', ...account, clientSecret: 'secret' });
      const calls: string[] = [];
      const upstream = {
        historyPage: async (_caller: unknown, deviceId: string) => {
          calls.push(deviceId);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { commands: [], more: false };
        },
      } as unknown as UpstreamApi;
      const budgets = deviceBudgetsOf({ eu: 2, au: 2 });
      const readers = [handle, other].map((db) => {
        const instance = db === handle ? model : build(db).model;
        return new DeviceReads({
          model: instance,
          budget: new DeviceBudgetStore(db.db, budgets),
          upstream,
          now: () => clock.nowMs,
          log,
          tickMs: 0,
        });
      });
      await Promise.all(readers.map((reader) => reader.runDue()));
      expect([...calls].sort()).toEqual([...devices].sort());
      expect(readers.map((reader) => reader.counts.reads).reduce((a, b) => a + b)).toBe(12);
      // Read now: nothing is due until the idle read, however often they look.
      await Promise.all(readers.map((reader) => reader.runDue()));
      expect(calls).toHaveLength(12);
      const [state] = await Promise.all([model.stateOf(account, 'BAT-0')]);
      expect(state).toMatchObject({ nextReadReason: 'idle', leaseUntil: null });
      expect(state?.nextReadAt?.getTime()).toBe(T + DEFAULT_REFRESH_SETTINGS.idleEveryMs);
    } finally {
      if (other !== handle) await other.close();
    }
  });
  it("keeps an account's sign-in again at its next request once a read found it refused", async () => {
    // A device of its own: the budget is per device, whichever account.
    const deviceId = `BAT-${randomUUID().slice(0, 8)}`;
    const devices = [{ deviceId, name: deviceId, model: 'm', capabilities: {} }];
    await model.readSites(account, async () => ({
      sites: [
        { siteId: 'PLANT-1', name: 'p', timeZone: 'UTC', clock: { source: 'offset' }, devices },
      ],
    }));
    const caller = { id: 's', ...account, clientSecret: 'secret' };
    await model.rememberCaller(caller);
    let refuse = true;
    let calls = 0;
    const upstream = {
      historyPage: async () => {
        calls += 1;
        if (refuse) throw notSignedIn('The vendor refused the sign-in.');
        return { commands: [], more: false };
      },
    } as unknown as UpstreamApi;
    const reads = readerOf(upstream);
    await reads.runDue();
    expect(reads.counts.failed).toBe(1);
    // The vendor takes the secret again (a passing refusal); the operator's next request, with the
    // same secret, keeps it for the refresher at once, not ten minutes later.
    refuse = false;
    await model.rememberCaller(caller);
    // Past the read's backoff and the refused call's window (a read leaves a change its call).
    clock.nowMs += 60_000;
    await reads.runDue();
    expect(calls).toBe(2);
    expect(reads.counts.reads).toBe(1);
  });

  // Last: it empties every account's rows, as the sandbox's reset does.
  it('keeps nothing of a read the sandbox answered before its reset, though the site is bound again', async () => {
    const deviceId = `BAT-${randomUUID().slice(0, 8)}`;
    const site = { siteId: 'PLANT-1', deviceIds: [deviceId] };
    await model.recordSiteBound(account, site);
    await model.rememberCaller({ id: 's', ...account, clientSecret: 'secret' });
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const upstream = {
      historyPage: async () => {
        asked();
        await answered;
        return { commands: [{ ...record('cmd_before_reset'), deviceId }], more: false };
      },
    } as unknown as UpstreamApi;
    const reads = readerOf(upstream);
    const reading = reads.runDue();
    await wasAsked;
    // The sandbox forgot everything; the next test binds the same site before the old answer lands.
    await model.store.forgetAll();
    await model.recordSiteBound(account, site);
    answer();
    await reading;
    expect(await model.status(account, deviceId, 'cmd_before_reset')).toBeUndefined();
    const view = await model.history(account, deviceId, { startMs: T, endMs: T + 3 * 3_600_000 });
    expect(view.commands).toEqual([]);
  });
});
