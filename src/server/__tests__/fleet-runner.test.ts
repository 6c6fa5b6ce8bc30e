/**
 * The fleet runner's patience with a batch whose earlier try may have reached its devices
 * (docs/fleet-dispatch.md, Waiting): while the ledger says the outcome is not settled, the batch
 * is tried again for longer than a batch the upstream plainly failed, and when it is given up its
 * devices are told that their outcome is not known rather than that the upstream refused them.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { ProblemError } from '../http/problem.ts';
import { openBffStorage } from '../db/storage.ts';
import { ChangeSteps } from '../changes/change-steps.ts';
import { FleetRunner, MAX_BATCH_ATTEMPTS, MAX_SETTLING_ATTEMPTS } from '../fleet/fleet-runner.ts';
import { FleetStore } from '../fleet/fleet-store.ts';
import type { Ledger } from '../ledger/ledger.ts';
import { problemAnswer, unknownOutcome, type LedgerAnswer } from '../ledger/ledger-answers.ts';
import { SecretBox } from '../session/secret-box.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import { createTwoDeviceJob } from './support/fleet-job.ts';

describe('a fleet batch whose earlier try is not settled', () => {
  let testDb: TestDatabase;
  let store: FleetStore;
  const box = new SecretBox(randomBytes(32));
  let nowMs = Date.parse('2026-12-01T09:00:00Z');

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite');
    const storage = await openBffStorage({ database: await testDb.open() });
    if (!storage) throw new Error('no storage');
    store = new FleetStore(storage.handle.db);
  });
  afterAll(() => testDb.drop());

  /** A job of one batch of two devices, and a runner whose ledger always answers `run`. */
  async function jobWhoseLedger(run: () => Promise<LedgerAnswer>) {
    const id = await createTwoDeviceJob(store, box, nowMs);
    let tries = 0;
    const ledger = {
      run: () => {
        tries += 1;
        return run();
      },
    } as unknown as Ledger;
    const runner = new FleetRunner({
      store,
      ledger,
      steps: new ChangeSteps({ ledger, upstream: {} as UpstreamApi, upstreamNow: () => nowMs }),
      box,
      now: () => nowMs,
      forgetCaller: () => {},
    });
    /** Steps the job until it ends, moving the clock to each next step; the tries it took. */
    const runToEnd = async () => {
      for (let step = await runner.step(id); step; step = await runner.step(id))
        nowMs = Math.max(nowMs, step.atMs);
      return tries;
    };
    return { id, runToEnd };
  }

  it('tries it for longer, then says the outcome is not known', async () => {
    const { id, runToEnd } = await jobWhoseLedger(() =>
      Promise.reject(
        new ProblemError(
          503,
          'reconciliation_pending',
          'An earlier submission for this device and window has an unknown outcome, and the command history could not be read to settle it. Nothing was sent; try again in a moment.',
          { headers: { 'retry-after': '5' } },
        ),
      ),
    );
    expect(await runToEnd()).toBe(MAX_SETTLING_ATTEMPTS);
    expect(MAX_SETTLING_ATTEMPTS).toBeGreaterThan(MAX_BATCH_ATTEMPTS);
    const [batch] = await store.batches(id);
    expect(batch?.state).toBe('failed');
    for (const device of batch?.devices ?? []) {
      expect(device.failure).toMatch(/^Whether this batch reached the device is not known/);
      expect(device.failure).not.toMatch(/Nothing was sent/);
    }
  });

  it('keeps trying a batch whose answer was lost, and then says its outcome is not known', async () => {
    const lost = problemAnswer(
      unknownOutcome(
        new ProblemError(504, 'upstream_timeout', 'The upstream did not answer in time.'),
      ),
    );
    const { id, runToEnd } = await jobWhoseLedger(() =>
      Promise.resolve({ answer: lost, replayed: false }),
    );
    expect(await runToEnd()).toBe(MAX_SETTLING_ATTEMPTS);
    const [batch] = await store.batches(id);
    expect(batch?.devices[1]?.failure).toMatch(
      /^Whether this batch reached the device is not known/,
    );
  });

  it('gives up a batch the upstream keeps refusing with a wait after the usual tries, in its words', async () => {
    const { id, runToEnd } = await jobWhoseLedger(() =>
      Promise.reject(
        new ProblemError(
          503,
          'upstream_circuit_open',
          'The Europe upstream failed 5 times in a row, so it is not called for a few seconds. Nothing was sent; try again shortly.',
          { headers: { 'retry-after': '10' } },
        ),
      ),
    );
    expect(await runToEnd()).toBe(MAX_BATCH_ATTEMPTS);
    const [batch] = await store.batches(id);
    expect(batch?.devices[0]?.failure).toMatch(/^The Europe upstream failed 5 times/);
  });
});
