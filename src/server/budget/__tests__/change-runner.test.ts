/**
 * Queued changes step by step (docs/decisions/007-device-call-budget.md, section 2), on a clock
 * the test moves and a fake `send` in place of the command ledger: planning around the budget
 * and earlier changes, withdrawing until a step starts, the lead time before a new window, a 429
 * marking the device busy, a refused step stopping the change, tries given up, and a step
 * interrupted mid-way sent again under its key.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { devicesOfStep, type QueuedChange } from '#domain/queued-change.ts';
import { openBffStorage } from '../../db/storage.ts';
import {
  ChangeRunner,
  MAX_STEP_ATTEMPTS,
  type StepResult,
  type StepToSend,
} from '../change-runner.ts';
import { answeredCall } from './support/answered-call.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '../device-budget-store.ts';
import { statusOf } from '../queued-change-rows.ts';
import { QueuedChangeStore } from '../queued-change-store.ts';
import { StepCalls } from '../step-calls.ts';

const T = Date.parse('2026-11-25T14:00:00Z');
const s = (seconds: number) => T + seconds * 1000;
const OWNER = { region: 'eu' as const, clientId: 'demo-eu', operatorName: 'Ana' };
const LEASE_MS = 150_000;
const command = (startMs: number) => ({
  powerControl: { targetBatteryPowerW: -2000 },
  startTime: new Date(startMs).toISOString(),
  endTime: new Date(startMs + 3600_000).toISOString(),
});
const device = () => `BAT-${randomUUID().slice(0, 8)}`;
const replace = (deviceId: string, key = randomUUID()): QueuedChange => ({
  kind: 'replace',
  steps: [
    { call: 'cancel', deviceId, commandId: 'cmd_old', idempotencyKey: `${key}/1` },
    { call: 'submit', deviceId, command: command(s(7200)), idempotencyKey: `${key}/2` },
  ],
});
const submit = (deviceId: string): QueuedChange => ({
  kind: 'submit',
  steps: [{ call: 'submit', deviceId, command: command(s(7200)), idempotencyKey: randomUUID() }],
});

describe('queued changes, step by step', () => {
  let testDb: TestDatabase;
  let budget: DeviceBudgetStore;
  let store: QueuedChangeStore;
  let nowMs = T;

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite');
    const storage = await openBffStorage({ database: await testDb.open() });
    if (!storage) throw new Error('no storage');
    budget = new DeviceBudgetStore(storage.handle.db, deviceBudgetsOf({ eu: 2, au: 2 }));
    store = new QueuedChangeStore(storage.handle.db, budget);
  });
  afterAll(() => testDb.drop());

  /**
   * A runner whose `send` answers with `answer` (default: accepted) and, like the ledger, replays
   * a key it has seen rather than calling the upstream again; `upstreamCalls` lists the keys that
   * reached the upstream.
   */
  function runnerWith(answer: (step: StepToSend) => StepResult = () => accepted) {
    const upstreamCalls: string[] = [];
    const tries: StepToSend[] = [];
    const seen = new Map<string, StepResult>();
    const send = async (step: StepToSend): Promise<StepResult> => {
      tries.push(step);
      const known = seen.get(step.step.idempotencyKey);
      if (known) return known;
      upstreamCalls.push(step.step.idempotencyKey);
      const result = answer(step);
      if (result.result === 'sent' || result.result === 'refused')
        seen.set(step.step.idempotencyKey, result);
      return result;
    };
    const runner = new ChangeRunner({
      store,
      budget,
      upstreamNow: () => nowMs,
      leaseMs: LEASE_MS,
      log: { warn: () => {} },
      send,
    });
    return { runner, upstreamCalls, tries, send };
  }
  const accepted: StepResult = { result: 'sent', answer: { status: 202, body: { id: 'cmd_new' } } };

  async function enqueue(change: QueuedChange, extra: { deadlineStartMs?: number } = {}) {
    const outcome = await store.create({
      id: randomUUID(),
      owner: OWNER,
      change,
      nowMs,
      ...(extra.deadlineStartMs === undefined
        ? {}
        : { deadline: { windowStartMs: extra.deadlineStartMs, leadMs: 60_000 } }),
    });
    if (!outcome.queued) throw new Error(`not queued: ${outcome.reason}`);
    return outcome.row;
  }
  const statusOfChange = async (id: string) => {
    const row = await store.find(id);
    if (!row) throw new Error(`no change ${id}`);
    return statusOf(row);
  };

  it('sends a replace at once when both slots are free, cancel first, each step once', async () => {
    nowMs = s(0);
    const { runner, upstreamCalls, tries } = runnerWith();
    const row = await enqueue(replace(device()));
    expect(await runner.run(row.id)).toBeUndefined();
    expect(tries.map((t) => t.step.call)).toEqual(['cancel', 'submit']);
    expect(upstreamCalls).toEqual(row.change.steps.map((step) => step.idempotencyKey));
    const status = await statusOfChange(row.id);
    expect(status).toMatchObject({ state: 'sent', kind: 'replace' });
    expect(status.steps.map((step) => step.state)).toEqual(['sent', 'sent']);
    expect(status.goesAt).toBeUndefined();
  });

  it("holds a replace's cancel until its submit can follow at once, then sends both", async () => {
    nowMs = s(0);
    const id = device();
    await answeredCall(budget, { region: 'eu', deviceIds: [id], kind: 'read', nowMs: s(-30) });
    const { runner, tries } = runnerWith();
    const row = await enqueue(replace(id));
    // One slot is free now, but the cancel does not take it: the old window stays until then.
    expect(row.steps.map((step) => step.plannedAtMs)).toEqual([s(30), s(30)]);
    expect(await runner.run(row.id)).toBe(s(30));
    nowMs = s(29);
    expect(await runner.run(row.id)).toBe(s(30));
    expect(tries).toHaveLength(0);
    const waiting = await statusOfChange(row.id);
    expect(waiting).toMatchObject({ state: 'queued', goesAt: new Date(s(30)).toISOString() });
    nowMs = s(30);
    expect(await runner.run(row.id)).toBeUndefined();
    expect(tries.map((t) => t.step.call)).toEqual(['cancel', 'submit']);
  });

  it('withdraws a change until its first step starts, and never sends it', async () => {
    nowMs = s(0);
    const id = device();
    await answeredCall(budget, { region: 'eu', deviceIds: [id], kind: 'read', nowMs: s(-10) });
    await answeredCall(budget, { region: 'eu', deviceIds: [id], kind: 'read', nowMs: s(-5) });
    const { runner, tries } = runnerWith();
    const row = await enqueue(submit(id));
    const other = await store.withdraw({ region: 'eu', clientId: 'someone-else' }, row.id, s(1));
    expect(other).toEqual({ withdrawn: false, row: undefined });
    const { withdrawn, row: after } = await store.withdraw(OWNER, row.id, s(1));
    expect(withdrawn).toBe(true);
    expect(after).toMatchObject({ state: 'withdrawn', nextAtMs: undefined });
    nowMs = s(60);
    expect(await runner.run(row.id)).toBeUndefined();
    expect(tries).toEqual([]);
    // Its slot went back to the device: a read may take it.
    expect(
      await budget.reserve({ region: 'eu', deviceIds: [id], kind: 'read', nowMs: s(60) }),
    ).toMatchObject({ granted: true });
  });

  it('refuses to withdraw a change whose first step went', async () => {
    nowMs = s(0);
    const id = device();
    let calls = 0;
    // The cancel goes; the vendor calls the device busy at the submit, which waits.
    const { runner } = runnerWith(() =>
      calls++ === 0 ? accepted : { result: 'busy', retryAfterMs: 45_000 },
    );
    const row = await enqueue(replace(id));
    await runner.run(row.id);
    const { withdrawn, row: after } = await store.withdraw(OWNER, row.id, s(1));
    expect(withdrawn).toBe(false);
    expect(after?.state).toBe('sending');
  });

  it('refuses a replace the budget cannot finish by the lead time, writing nothing', async () => {
    nowMs = s(0);
    const id = device();
    await answeredCall(budget, { region: 'eu', deviceIds: [id], kind: 'read', nowMs: s(-10) });
    const outcome = await store.create({
      id: randomUUID(),
      owner: OWNER,
      change: replace(id),
      nowMs,
      deadline: { windowStartMs: s(90), leadMs: 60_000 },
    });
    expect(outcome).toEqual({
      queued: false,
      reason: 'budget_too_tight',
      plan: [s(50), s(50)],
      earliestStartMs: s(110),
    });
    expect(await store.list(OWNER, { deviceId: id })).toEqual([]);
  });

  it('waits for a device another client spent (429) and sends when it is free', async () => {
    nowMs = s(0);
    const id = device();
    let refusals = 1;
    const { runner, upstreamCalls } = runnerWith(() =>
      refusals-- > 0 ? { result: 'busy', retryAfterMs: 45_000 } : accepted,
    );
    const row = await enqueue(submit(id));
    expect(await runner.run(row.id)).toBe(s(45));
    expect(await statusOfChange(row.id)).toMatchObject({
      state: 'sending',
      goesAt: new Date(s(45)).toISOString(),
    });
    // Reads wait for the change too, and the busy device gives nobody a slot meanwhile.
    expect(
      await budget.reserve({ region: 'eu', deviceIds: [id], kind: 'read', nowMs: s(44) }),
    ).toMatchObject({ granted: false });
    nowMs = s(45);
    expect(await runner.run(row.id)).toBeUndefined();
    expect(upstreamCalls).toHaveLength(2);
    expect((await statusOfChange(row.id)).state).toBe('sent');
  });

  it('fails a change with nothing sent when a 429 pushes it past its lead time', async () => {
    nowMs = s(0);
    const { runner, tries } = runnerWith(() => ({ result: 'busy', retryAfterMs: 60_000 }));
    const row = await enqueue(replace(device()), { deadlineStartMs: s(100) });
    expect(await runner.run(row.id)).toBeUndefined();
    expect(tries).toHaveLength(1);
    const status = await statusOfChange(row.id);
    expect(status).toMatchObject({
      state: 'failed',
      outcome: { failure: 'budget_too_tight', earliestStart: new Date(s(120)).toISOString() },
    });
    expect(status.outcome?.detail).toMatch(/Nothing was sent/);
    // The operator reads the earliest start as a clock time, never as an ISO timestamp.
    const earliest = new Date(s(120));
    const clock = earliest.toISOString().slice(11, 19);
    expect(status.outcome?.detail).toContain(`The earliest start it allows is ${clock} UTC.`);
    expect(status.outcome?.detail).not.toContain(earliest.toISOString());
  });

  it('stops a replace whose cancel is refused: the new window is not sent', async () => {
    nowMs = s(0);
    const { runner, tries } = runnerWith((step) =>
      step.step.call === 'cancel'
        ? {
            result: 'refused',
            answer: { status: 409, body: { code: 'command_not_cancellable' } },
            detail: 'The command has completed and can no longer be cancelled.',
          }
        : accepted,
    );
    const row = await enqueue(replace(device()));
    expect(await runner.run(row.id)).toBeUndefined();
    expect(tries.map((t) => t.step.call)).toEqual(['cancel']);
    const status = await statusOfChange(row.id);
    expect(status).toMatchObject({
      state: 'failed',
      outcome: {
        failure: 'refused',
        detail: 'The command has completed and can no longer be cancelled.',
      },
    });
    expect(status.steps.map((step) => step.state)).toEqual(['failed', 'waiting']);
  });

  it('tries a failing step again after a back-off, then gives the change up', async () => {
    nowMs = s(0);
    const { runner, tries } = runnerWith(() => ({ result: 'retry' }));
    const row = await enqueue(submit(device()));
    let next = await runner.run(row.id);
    while (next !== undefined) {
      expect(next).toBeGreaterThan(nowMs);
      nowMs = next;
      next = await runner.run(row.id);
    }
    expect(tries).toHaveLength(MAX_STEP_ATTEMPTS);
    expect(await statusOfChange(row.id)).toMatchObject({
      state: 'failed',
      outcome: { failure: 'not_sent' },
    });
  });

  it('never reports a step whose outcome stayed unknown as not sent, and counts no wait of its own making', async () => {
    nowMs = s(0);
    // Two waits of the change's own making (an earlier try still settling), then tries whose
    // outcome is unknown and whose history cannot be read.
    const { runner, tries } = runnerWith(({ attempt }) =>
      attempt <= 2
        ? { result: 'wait', retryAfterMs: 1_000 }
        : { result: 'retry', outcomeUnknown: true },
    );
    const row = await enqueue(submit(device()));
    let next = await runner.run(row.id);
    while (next !== undefined) {
      nowMs = next;
      next = await runner.run(row.id);
    }
    expect(tries).toHaveLength(2 + MAX_STEP_ATTEMPTS);
    expect(await statusOfChange(row.id)).toMatchObject({
      state: 'failed',
      outcome: { failure: 'outcome_unknown' },
    });
  });

  it('sends changes of one device in the order they were queued, reads after them', async () => {
    nowMs = s(0);
    const id = device();
    const { runner, tries } = runnerWith();
    const first = await enqueue(replace(id));
    const second = await enqueue(submit(id));
    expect(second.steps[0]?.plannedAtMs).toBe(s(60));
    // The second is not due; running it first sends nothing.
    expect(await runner.run(second.id)).toBe(s(60));
    expect(await runner.run(first.id)).toBeUndefined();
    nowMs = s(60);
    expect(
      await budget.reserve({ region: 'eu', deviceIds: [id], kind: 'read', nowMs }),
    ).toMatchObject({ reason: 'changes_waiting', changeIds: [second.id] });
    expect(await runner.run(second.id)).toBeUndefined();
    expect(tries.map((t) => t.changeId)).toEqual([first.id, first.id, second.id]);
  });

  it("keeps a device's changes in order even when the later one has a slot sooner", async () => {
    nowMs = s(0);
    const [shared, busy] = [device(), device()];
    await budget.markBusy('eu', [busy], s(50), nowMs);
    const { runner, tries } = runnerWith();
    const batch = await enqueue({
      kind: 'batch',
      steps: [
        {
          call: 'batch',
          batch: { devices: [shared, busy], command: command(s(7200)) },
          idempotencyKey: randomUUID(),
        },
      ],
    });
    const later = await enqueue(submit(shared));
    expect(batch.steps[0]?.plannedAtMs).toBe(s(50));
    expect(later.steps[0]?.plannedAtMs).toBe(s(50));
    nowMs = s(50);
    expect(await runner.run(later.id)).toBe(s(50));
    expect(tries).toEqual([]);
    await runner.run(batch.id);
    await runner.run(later.id);
    expect(tries.map((t) => t.changeId)).toEqual([batch.id, later.id]);
  });

  it('fails a change found late rather than send a window it can no longer keep', async () => {
    nowMs = s(0);
    const { runner, tries } = runnerWith();
    const row = await enqueue(replace(device()), { deadlineStartMs: s(120) });
    expect(row.steps.map((step) => step.plannedAtMs)).toEqual([s(0), s(0)]);
    // Its BFF was down for a while: the cancel could go now, the submit no longer in time.
    nowMs = s(61);
    expect(await runner.run(row.id)).toBeUndefined();
    expect(tries).toEqual([]);
    expect(await statusOfChange(row.id)).toMatchObject({
      state: 'failed',
      outcome: { failure: 'budget_too_tight', earliestStart: new Date(s(121)).toISOString() },
    });
  });

  it("lists all of a fleet's 60 waiting changes, the oldest included, not the newest 50", async () => {
    nowMs = s(0);
    const owner = { ...OWNER, clientId: `fleet-${randomUUID().slice(0, 8)}` };
    const made: string[] = [];
    for (let i = 0; i < 60; i++) {
      const outcome = await store.create({
        id: randomUUID(),
        owner,
        change: submit(device()),
        nowMs,
      });
      if (!outcome.queued) throw new Error(`not queued: ${outcome.reason}`);
      made.push(outcome.row.id);
    }
    const listed = (await store.list(owner, { waiting: true })).map((row) => row.id);
    expect(listed).toHaveLength(60);
    expect(listed).toContain(made[0]);
  });

  it('answers an Idempotency-Key used before with the change it made', async () => {
    nowMs = s(0);
    const change = submit(device());
    const base = { owner: OWNER, change, nowMs, idempotencyKey: 'key-1', requestHash: 'h1' };
    const first = await store.create({ ...base, id: randomUUID() });
    const again = await store.create({ ...base, id: randomUUID() });
    const other = await store.create({ ...base, id: randomUUID(), requestHash: 'h2' });
    expect(first.queued).toBe(true);
    expect(again).toMatchObject({ queued: false, reason: 'same_key', sameRequest: true });
    expect(other).toMatchObject({ queued: false, reason: 'same_key', sameRequest: false });
    expect(again.queued === false && again.reason === 'same_key' && again.row.id).toBe(
      first.queued && first.row.id,
    );
  });

  it('sends an interrupted step again under its key once its lease is over: the ledger replays it', async () => {
    nowMs = s(0);
    const { runner, upstreamCalls, tries, send } = runnerWith();
    const row = await enqueue(replace(device()));
    // A BFF that took the cancel's slot and sent it, then died before recording the answer.
    const start = await store.startStep(row.id, nowMs, LEASE_MS);
    if (start.kind !== 'go') throw new Error(`the cancel did not start: ${start.kind}`);
    await send({
      changeId: row.id,
      index: 0,
      step: start.step,
      change: row.change,
      owner: row.owner,
      secretCiphertext: null,
      attempt: 1,
      calls: new StepCalls({
        budget,
        region: row.owner.region,
        change: { id: row.id, seq: row.seq },
        deviceIds: devicesOfStep(start.step),
        slotIds: start.slotIds,
      }),
    });
    const cancelKey = start.step.idempotencyKey;
    expect((await store.due(s(1))).ids).not.toContain(row.id);
    expect((await store.due(s(0) + LEASE_MS)).ids).toContain(row.id);
    nowMs = s(0) + LEASE_MS;
    expect(await runner.run(row.id)).toBeUndefined();
    expect(tries.map((t) => [t.step.call, t.attempt])).toEqual([
      ['cancel', 1],
      ['cancel', 2],
      ['submit', 1],
    ]);
    // The cancel reached the upstream once; the try after the crash found its key.
    expect(upstreamCalls.filter((key) => key === cancelKey)).toHaveLength(1);
    expect((await statusOfChange(row.id)).state).toBe('sent');
  });
});
