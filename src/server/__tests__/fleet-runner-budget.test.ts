/**
 * A fleet job spends its devices' budget of upstream calls like a person's change does
 * (docs/decisions/007-device-call-budget.md, section 1): a batch whose devices have no call left
 * waits for their next slot, sends nothing meanwhile, and is not reported failed for it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { answeredCall } from '../budget/__tests__/support/answered-call.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '../budget/device-budget-store.ts';
import { openBffStorage } from '../db/storage.ts';
import { ChangeSteps } from '../changes/change-steps.ts';
import { FleetRunner, MAX_BATCH_ATTEMPTS } from '../fleet/fleet-runner.ts';
import { FleetStore } from '../fleet/fleet-store.ts';
import { jsonAnswer, problemAnswer, type LedgerAnswer } from '../ledger/ledger-answers.ts';
import type { LedgerIntent } from '../ledger/ledger-intent.ts';
import type { Ledger } from '../ledger/ledger.ts';
import { SecretBox } from '../session/secret-box.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import { createTwoDeviceJob } from './support/fleet-job.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';

const T = Date.parse('2026-12-01T09:00:00Z');

describe("a fleet batch within its devices' budget of upstream calls", () => {
  let testDb: TestDatabase;
  let store: FleetStore;
  let budget: DeviceBudgetStore;
  const box = new SecretBox(randomBytes(32));
  let nowMs = T;
  let batchCalls = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite');
    const storage = await openBffStorage({ database: await testDb.open() });
    if (!storage) throw new Error('no storage');
    store = new FleetStore(storage.handle.db);
    budget = new DeviceBudgetStore(storage.handle.db, deviceBudgetsOf({ eu: 2, au: 2 }));
  });
  afterAll(() => testDb.drop());

  /** The ledger's part as the runner sees it: the intent's `send`, its result as the answer. */
  const ledger = {
    run: async (intent: LedgerIntent): Promise<LedgerAnswer> => {
      const result = (await intent.send()) as CallResult<unknown>;
      if (result.kind === 'accepted')
        return { answer: jsonAnswer(202, result.value), replayed: false };
      return { answer: problemAnswer(result.problem), replayed: false };
    },
    batchAnswerByKey: () => Promise.resolve(undefined),
  } as unknown as Ledger;
  const upstream = {
    batch: (): Promise<CallResult<unknown>> => {
      batchCalls += 1;
      return Promise.resolve({
        kind: 'accepted',
        status: 202,
        value: {
          batchCommandId: 'BATCH-1',
          timestamp: new Date(nowMs).toISOString(),
          confirmation: 'confirming',
          commands: [],
          unconfirmed: [],
        },
      });
    },
  } as unknown as UpstreamApi;

  it('waits for the next slot of a device whose calls are spent, then sends the batch once', async () => {
    const id = await createTwoDeviceJob(store, box, nowMs);
    // Someone else spent BAT-1's two calls of this minute, answered at once.
    for (let call = 0; call < 2; call += 1)
      expect(
        await answeredCall(budget, {
          region: 'eu',
          deviceIds: ['BAT-1'],
          kind: 'control',
          nowMs: T,
        }),
      ).toMatchObject({ granted: true });
    const runner = new FleetRunner({
      store,
      ledger,
      steps: new ChangeSteps({ ledger, upstream, budget, upstreamNow: () => nowMs }),
      box,
      now: () => nowMs,
      forgetCaller: () => {},
    });

    // More tries than a plainly failing batch gets, and none of them sends anything.
    for (let tries = 0; tries < MAX_BATCH_ATTEMPTS + 2; tries += 1) {
      nowMs = T + tries * 5_000;
      const next = await runner.step(id);
      expect(next?.atMs).toBeGreaterThan(nowMs);
    }
    expect(batchCalls).toBe(0);
    expect((await store.batches(id))[0]).toMatchObject({ state: 'pending' });

    // The minute passed: the batch goes, spending a call of each of its devices.
    nowMs = T + 60_000;
    await runner.step(id);
    expect(batchCalls).toBe(1);
    expect((await store.batches(id))[0]).toMatchObject({
      state: 'sent',
      batchCommandId: 'BATCH-1',
    });
    const slotsLeft = await budget.reserve({
      region: 'eu',
      deviceIds: ['BAT-2'],
      kind: 'control',
      nowMs,
    });
    expect(slotsLeft).toMatchObject({ granted: true });
    expect(
      await budget.reserve({ region: 'eu', deviceIds: ['BAT-2'], kind: 'control', nowMs }),
    ).toMatchObject({ granted: false, reason: 'no_slot' });
  });
});
