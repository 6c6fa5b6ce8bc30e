/**
 * The queue of changes on pg-boss (docs/decisions/007-device-call-budget.md, section 2), on
 * PGlite and, with TEST_DATABASE_URL, PostgreSQL: a replace waits until the upstream clock (which
 * the test moves) lets both its calls go, a queued change survives a restart
 * of its BFF, and two instances on one PostgreSQL send each step once between them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { QueuedChange } from '#domain/queued-change.ts';
import { openDatabase, type DatabaseHandle } from '#infra/database.ts';
import { openBffStorage } from '../../db/storage.ts';
import { ChangeQueue } from '../change-queue.ts';
import type { StepResult, StepToSend } from '../change-runner.ts';
import { answeredCall } from './support/answered-call.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '../device-budget-store.ts';
import { QueuedChangeStore } from '../queued-change-store.ts';

const T = Date.parse('2026-11-25T14:00:00Z');
const s = (seconds: number) => T + seconds * 1000;
const OWNER = { region: 'eu' as const, clientId: 'demo-eu' };
const FAST = {
  pollingIntervalSeconds: 0.5,
  stepExpireSeconds: 3,
  superviseIntervalSeconds: 1,
  recheckIntervalMs: 100,
};
const BUDGETS = deviceBudgetsOf({ eu: 2, au: 2 });
const silent = { info: () => {}, warn: () => {}, error: () => {} };
const device = () => `BAT-${randomUUID().slice(0, 8)}`;
const replace = (deviceId: string): QueuedChange => {
  const key = randomUUID();
  return {
    kind: 'replace',
    steps: [
      { call: 'cancel', deviceId, commandId: 'cmd_old', idempotencyKey: `${key}/1` },
      {
        call: 'submit',
        deviceId,
        command: {
          powerControl: { targetBatteryPowerW: 1500 },
          startTime: '2026-11-25T18:00:00Z',
          endTime: '2026-11-25T19:00:00Z',
        },
        idempotencyKey: `${key}/2`,
      },
    ],
  };
};

describe.each(DATABASE_KINDS)('the queue of changes on %s', { timeout: 120_000 }, (kind) => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  let nowMs = T;
  const queues: ChangeQueue[] = [];
  /** Every step each queue's `send` was given, by the step's key. */
  const sent = new Map<string, number>();

  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    handle = await testDb.open();
    await openBffStorage({ database: handle });
  });
  afterEach(async () => {
    for (const queue of queues.splice(0)) await queue.stop();
  });
  afterAll(() => testDb.drop());

  const send = async (step: StepToSend): Promise<StepResult> => {
    sent.set(step.step.idempotencyKey, (sent.get(step.step.idempotencyKey) ?? 0) + 1);
    return { result: 'sent', answer: { status: 202, body: {} } };
  };

  async function startQueue(on: DatabaseHandle = handle) {
    const budget = new DeviceBudgetStore(on.db, BUDGETS);
    const queue = new ChangeQueue({
      handle: on,
      store: new QueuedChangeStore(on.db, budget),
      budget,
      send,
      upstreamNow: () => nowMs,
      log: silent,
      options: FAST,
    });
    queues.push(queue);
    await queue.start();
    return { queue, budget };
  }

  async function enqueue(queue: ChangeQueue, change: QueuedChange) {
    const outcome = await queue.enqueue({ id: randomUUID(), owner: OWNER, change });
    if (!outcome.queued) throw new Error(`not queued: ${outcome.reason}`);
    return outcome.row;
  }

  it('holds a replace until both its calls can go on the upstream clock, then sends both', async () => {
    nowMs = s(0);
    const { queue, budget } = await startQueue();
    const id = device();
    await answeredCall(budget, { region: 'eu', deviceIds: [id], kind: 'read', nowMs: s(-20) });
    const row = await enqueue(queue, replace(id));
    expect(await queue.status(OWNER, row.id)).toMatchObject({
      state: 'queued',
      goesAt: new Date(s(40)).toISOString(),
    });
    // However long real time passes, the change waits for the upstream clock: nothing is sent.
    expect(await queue.settled(OWNER, row.id, 500)).toMatchObject({ state: 'queued' });
    expect(row.change.steps.map((step) => sent.get(step.idempotencyKey))).toEqual([
      undefined,
      undefined,
    ]);
    nowMs = s(40);
    const done = await queue.settled(OWNER, row.id, 30_000);
    expect(done?.state).toBe('sent');
    expect(row.change.steps.map((step) => sent.get(step.idempotencyKey))).toEqual([1, 1]);
  });

  it('sends a change queued before a restart once the new instance runs', async () => {
    nowMs = s(1000);
    const first = await startQueue();
    const id = device();
    await answeredCall(first.budget, {
      region: 'eu',
      deviceIds: [id],
      kind: 'control',
      nowMs: s(990),
    });
    await answeredCall(first.budget, {
      region: 'eu',
      deviceIds: [id],
      kind: 'control',
      nowMs: s(995),
    });
    const row = await enqueue(first.queue, replace(id));
    expect((await first.queue.status(OWNER, row.id))?.goesAt).toBe(new Date(s(1055)).toISOString());
    await first.queue.stop();

    const { queue } = await startQueue();
    nowMs = s(1055);
    expect((await queue.settled(OWNER, row.id, 30_000))?.state).toBe('sent');
    expect(row.change.steps.map((step) => sent.get(step.idempotencyKey))).toEqual([1, 1]);
  });

  it.runIf(kind === 'postgres')(
    'sends each step once when two instances share one PostgreSQL',
    async () => {
      nowMs = s(2000);
      const second = await openDatabase({
        dataDir: testDb.dataDir,
        databaseUrl: `${testDb.databaseUrl ?? ''}?application_name=second-instance`,
      });
      try {
        const [one, two] = [await startQueue(), await startQueue(second)];
        const rows = [];
        for (let i = 0; i < 6; i += 1)
          rows.push(await enqueue(i % 2 === 0 ? one.queue : two.queue, replace(device())));
        for (const row of rows)
          expect((await one.queue.settled(OWNER, row.id, 30_000))?.state).toBe('sent');
        for (const row of rows)
          expect(row.change.steps.map((step) => sent.get(step.idempotencyKey))).toEqual([1, 1]);
      } finally {
        for (const queue of queues.splice(0)) await queue.stop();
        await second.close();
      }
    },
  );
});
