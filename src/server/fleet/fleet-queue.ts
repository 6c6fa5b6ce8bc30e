import { setTimeout as sleep } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { PgBoss, fromPglite, type Db } from 'pg-boss';
import type { DatabaseHandle } from '../../infra/database.ts';
import type { FleetRunner } from './fleet-runner.ts';

/** The job queue's own schema, beside the BFF's; pg-boss creates and migrates it. */
export const QUEUE_SCHEMA = 'bff_queue';
/** The queue of fleet job steps: one step sends one batch (docs/fleet-dispatch.md). */
export const FLEET_STEP_QUEUE = 'fleet-job-step';

/** How far ahead a running step waits for the job's next step itself rather than queueing it, ms. */
const HOLD_MS = 5_000;

/** Timings of the queue; tests shorten them. */
export interface FleetQueueOptions {
  /** How often an idle worker looks for a due step, s (pg-boss's minimum is 0.5). Default 1. */
  pollingIntervalSeconds?: number | undefined;
  /**
   * How long a step may run before it counts as lost (its BFF died) and is run again, s. Longer
   * than a batch's worst case: the ledger's lease plus the status reads. Default 120.
   */
  stepExpireSeconds?: number | undefined;
  /**
   * How often the queue looks for steps that expired, s: with the expiry, how long a job whose BFF
   * died waits before another instance (or the restarted one) runs its step again. Default 10.
   */
  superviseIntervalSeconds?: number | undefined;
}

/** Where the queue writes its failures (pino's logger fits). */
export interface FleetQueueLog {
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

interface StepData {
  jobId: string;
}

/**
 * The durable queue behind fleet jobs: pg-boss on the BFF's database (PGlite or PostgreSQL,
 * docs/decisions/005-fleet-job-queue.md). A job is a chain of steps, each a queue job with the
 * fleet job's ID as its singleton key under the `stately` policy: at most one step of a fleet job
 * runs at a time across all BFF instances, and at most one waits. A step whose BFF died is run
 * again once it expires.
 */
export class FleetQueue {
  readonly #boss: PgBoss;
  readonly #runner: FleetRunner;
  readonly #log: FleetQueueLog;
  readonly #stepExpireSeconds: number;
  #stopping = false;
  #workerId: string | undefined;

  private constructor(
    boss: PgBoss,
    runner: FleetRunner,
    log: FleetQueueLog,
    stepExpireSeconds: number,
  ) {
    this.#boss = boss;
    this.#runner = runner;
    this.#log = log;
    this.#stepExpireSeconds = stepExpireSeconds;
  }

  /**
   * Installs or migrates the queue's schema, creates the queue and starts this instance's worker.
   *
   * @throws when the database refuses the queue's schema.
   */
  static async start(
    handle: DatabaseHandle,
    runner: FleetRunner,
    log: FleetQueueLog,
    options: FleetQueueOptions = {},
  ): Promise<FleetQueue> {
    const boss = new PgBoss({
      db: queueDatabaseOf(handle),
      schema: QUEUE_SCHEMA,
      ...(handle.driver === 'pglite' ? { backend: 'pglite' as const } : {}),
      schedule: false,
      superviseIntervalSeconds: options.superviseIntervalSeconds ?? 10,
      monitorIntervalSeconds: options.superviseIntervalSeconds ?? 10,
    });
    boss.on('error', (error: unknown) =>
      log.error(
        { reason: error instanceof Error ? error.message : String(error) },
        'job queue error',
      ),
    );
    await boss.start();
    const stepExpireSeconds = options.stepExpireSeconds ?? 120;
    await boss.createQueue(FLEET_STEP_QUEUE, {
      policy: 'stately',
      expireInSeconds: stepExpireSeconds,
      retryLimit: 1000,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: 30,
    });
    const queue = new FleetQueue(boss, runner, log, stepExpireSeconds);
    queue.#workerId = await boss.work<StepData>(
      FLEET_STEP_QUEUE,
      { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 1, batchSize: 1 },
      async (jobs) => {
        for (const job of jobs) await queue.#run(job.data.jobId);
      },
    );
    return queue;
  }

  /** Asks for a step of `jobId` at `atMs` (default now), unless one already waits. */
  async wake(jobId: string, atMs?: number): Promise<void> {
    await this.#boss.send(FLEET_STEP_QUEUE, { jobId } satisfies StepData, {
      singletonKey: jobId,
      ...(atMs === undefined ? {} : { startAfter: new Date(atMs) }),
    });
  }

  /** Brings a waiting step of `jobId` forward to now (a cancel need not wait for the rate). */
  async hurry(jobId: string): Promise<void> {
    await this.#boss.upsert(FLEET_STEP_QUEUE, { jobId } satisfies StepData, {
      singletonKey: jobId,
      startAfter: new Date(),
    });
    if (this.#workerId) this.#boss.notifyWorker(this.#workerId);
  }

  /** Stops the worker; a step under way finishes first (at most `timeoutMs`). */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#stopping = true;
    await this.#boss.stop({ graceful: true, close: false, timeout: timeoutMs });
  }

  async #run(jobId: string): Promise<void> {
    // The step keeps its queue job (and so the job's one active slot) for the next steps due
    // within HOLD_MS, sleeping until each is due: the rate is kept to the millisecond instead of
    // the polling interval, and a batch costs no queue round trip. Past that, or when half the
    // expiry has gone, the next step goes back to the queue.
    const heldUntilMs = Date.now() + (this.#stepExpireSeconds * 1000) / 2;
    try {
      let next = await this.#runner.step(jobId);
      while (
        next &&
        !this.#stopping &&
        next.atMs - Date.now() <= HOLD_MS &&
        next.atMs < heldUntilMs
      ) {
        await sleep(Math.max(0, next.atMs - Date.now()));
        next = await this.#runner.step(jobId);
      }
      if (next) await this.wake(jobId, next.atMs);
    } catch (error) {
      // pg-boss runs the step again after its retry delay; the batch keys make that safe.
      this.#log.warn(
        { jobId, reason: error instanceof Error ? error.message : String(error) },
        'fleet job step failed; it will be run again',
      );
      throw error;
    }
  }
}

/**
 * The database as pg-boss reads it: pg-boss's own PGlite adapter on the embedded database, the
 * BFF's pool on PostgreSQL (multi-statement answers flattened as pg-boss's own driver does).
 */
function queueDatabaseOf(handle: DatabaseHandle): Db {
  const client = (handle.db as unknown as { $client: unknown }).$client;
  if (handle.driver === 'pglite') return fromPglite(client as PGlite);
  const pool = client as pg.Pool;
  return {
    executeSql: async (text, values) => {
      const result = (await pool.query(text, values)) as pg.QueryResult | pg.QueryResult[];
      return Array.isArray(result)
        ? { rows: result.flatMap((r) => r.rows) }
        : { rows: result.rows };
    },
  };
}
