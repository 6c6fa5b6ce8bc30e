import { setTimeout as sleep } from 'node:timers/promises';
import type { PgBoss } from 'pg-boss';
import type { DatabaseHandle } from '../../infra/database.ts';
import { JobQueueHost, startUntilStopped } from '../db/job-queue.ts';
import { ProblemError } from '../http/problem.ts';
import type { FleetRunner } from './fleet-runner.ts';

/** The queue of fleet job steps: one step sends one batch (docs/fleet-dispatch.md). */
export const FLEET_STEP_QUEUE = 'fleet-job-step';

/** How far ahead a running step waits for the job's next step itself rather than queueing it, ms. */
const HOLD_MS = 5_000;

/** `Retry-After` of a refusal while the queue starts, s: a start on an existing schema takes ~1 s. */
const STARTING_RETRY_AFTER_S = 2;

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
  /**
   * Test-only: awaited in each try of the start once pg-boss has started, before the queue and
   * the worker are made; tests hold the start there (until `stopped`, which aborts when
   * {@link FleetQueue.stop} begins), or fail it.
   */
  beforeWorker?: ((stopped: AbortSignal) => Promise<void>) | undefined;
  /**
   * The BFF's one pg-boss, shared with its other queues and stopped by the BFF; default one of
   * the queue's own, stopped with it.
   */
  host?: JobQueueHost | undefined;
}

/** Where the queue writes its failures (pino's logger fits). */
export interface FleetQueueLog {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

/** Where the queue stands: `starting` until its worker runs (tries again after failures). */
export type FleetQueueState = 'starting' | 'ready' | 'stopped';

interface StepData {
  jobId: string;
}

/**
 * The durable queue behind fleet jobs: pg-boss on the BFF's database (PGlite or PostgreSQL,
 * docs/decisions/005-fleet-job-queue.md). A job is a chain of steps, each a queue job with the
 * fleet job's ID as its singleton key under the `stately` policy: at most one step of a fleet job
 * runs at a time across all BFF instances, and at most one waits. A step whose BFF died is run
 * again once it expires.
 *
 * Made at once, started in the background ({@link FleetQueue.start}) so the BFF serves without
 * waiting for it (docs/architecture.md, Running it): until the worker runs, what needs the queue
 * is refused with {@link FleetQueue.requireReady}.
 */
export class FleetQueue {
  readonly #host: JobQueueHost;
  /** Whether the host is the queue's own, stopped with it. */
  readonly #ownsHost: boolean;
  readonly #runner: FleetRunner;
  readonly #log: FleetQueueLog;
  readonly #options: FleetQueueOptions;
  readonly #stepExpireSeconds: number;
  readonly #stopped = new AbortController();
  #state: FleetQueueState = 'starting';
  #failedStarts = 0;
  #nextTryAtMs: number | undefined;
  #starting: Promise<void> | undefined;
  #workerId: string | undefined;

  /** Makes the queue on `handle`; nothing is loaded, read or written until {@link FleetQueue.start}. */
  constructor(
    handle: DatabaseHandle,
    runner: FleetRunner,
    log: FleetQueueLog,
    options: FleetQueueOptions = {},
  ) {
    this.#ownsHost = options.host === undefined;
    this.#host =
      options.host ??
      new JobQueueHost(handle, log, { superviseIntervalSeconds: options.superviseIntervalSeconds });
    this.#runner = runner;
    this.#log = log;
    this.#options = options;
    this.#stepExpireSeconds = options.stepExpireSeconds ?? 120;
  }

  /** `starting` until the worker runs, then `ready`; `stopped` once {@link FleetQueue.stop} began. */
  get state(): FleetQueueState {
    return this.#state;
  }

  /**
   * Starts the queue in the background: installs or migrates its schema, creates the queue and
   * this instance's worker. A try that fails is logged and tried again after 1 s, doubling up to
   * 30 s, until it works or {@link FleetQueue.stop} is called; the returned promise never rejects
   * and settles when the worker runs or the queue stopped first. Calling it again returns the
   * same promise.
   */
  start(): Promise<void> {
    this.#starting ??= this.#startUntilStopped();
    return this.#starting;
  }

  /**
   * @throws ProblemError 503 `fleet_jobs_starting` with `Retry-After` (s) while the queue has not
   *   started (or is stopping): nothing may be created or woken yet.
   */
  requireReady(): void {
    if (this.#state === 'ready') return;
    const failing = this.#failedStarts > 0 && this.#state === 'starting';
    const untilNextTryS =
      this.#nextTryAtMs === undefined ? 0 : Math.ceil((this.#nextTryAtMs - Date.now()) / 1000);
    throw new ProblemError(
      503,
      'fleet_jobs_starting',
      failing
        ? 'Fleet jobs cannot start on this server yet: it could not set up their queue in its database, and keeps trying. Nothing was created or changed. Try again in a minute; if this goes on, tell your administrator.'
        : 'Fleet jobs are still starting on this server, so nothing was created or changed. Try again in a few seconds.',
      {
        title: 'Fleet jobs starting',
        headers: {
          'retry-after': String(
            Math.max(STARTING_RETRY_AFTER_S, untilNextTryS + STARTING_RETRY_AFTER_S),
          ),
        },
      },
    );
  }

  async #startUntilStopped(): Promise<void> {
    const attempt = await startUntilStopped(
      () => this.#startOnce(),
      this.#stopped.signal,
      ({ attempt: failed, retryInMs, reason }) => {
        this.#failedStarts += 1;
        this.#nextTryAtMs = Date.now() + retryInMs;
        this.#log.error(
          { attempt: failed, retryInMs, reason },
          'fleet job queue did not start; fleet jobs are refused until it does; trying again',
        );
      },
    );
    if (attempt !== undefined && this.#failedStarts > 0 && this.#state === 'ready')
      this.#log.info({ attempt }, 'fleet job queue started after failed tries');
  }

  async #startOnce(): Promise<void> {
    // pg-boss may be started again after a failed start (its own start retries do the same).
    await this.#host.withStarted(async () => undefined);
    await this.#options.beforeWorker?.(this.#stopped.signal);
    if (this.#stopped.signal.aborted) return;
    await this.#host.withStarted(async (boss) => {
      if (this.#stopped.signal.aborted) return;
      await boss.createQueue(FLEET_STEP_QUEUE, {
        policy: 'stately',
        expireInSeconds: this.#stepExpireSeconds,
        retryLimit: 1000,
        retryDelay: 1,
        retryBackoff: true,
        retryDelayMax: 30,
      });
      if (this.#stopped.signal.aborted) return;
      this.#workerId = await boss.work<StepData>(
        FLEET_STEP_QUEUE,
        { pollingIntervalSeconds: this.#options.pollingIntervalSeconds ?? 1, batchSize: 1 },
        async (jobs) => {
          for (const job of jobs) await this.#run(job.data.jobId);
        },
      );
    });
    if (this.#state === 'starting' && this.#workerId !== undefined) this.#state = 'ready';
  }

  /**
   * The started pg-boss, also while a graceful stop lets a step under way queue its next one.
   *
   * @throws ProblemError 503 `fleet_jobs_starting` before the worker ran.
   */
  #started(): PgBoss {
    const boss = this.#host.boss;
    if (boss && this.#workerId !== undefined) return boss;
    this.requireReady();
    throw new Error('the fleet job queue is ready without a worker');
  }

  /** Asks for a step of `jobId` at `atMs` (default now), unless one already waits. */
  async wake(jobId: string, atMs?: number): Promise<void> {
    await this.#started().send(FLEET_STEP_QUEUE, { jobId } satisfies StepData, {
      singletonKey: jobId,
      ...(atMs === undefined ? {} : { startAfter: new Date(atMs) }),
    });
  }

  /** Brings a waiting step of `jobId` forward to now (a cancel need not wait for the rate). */
  async hurry(jobId: string): Promise<void> {
    await this.#started().upsert(FLEET_STEP_QUEUE, { jobId } satisfies StepData, {
      singletonKey: jobId,
      startAfter: new Date(),
    });
    if (this.#workerId) this.#started().notifyWorker(this.#workerId);
  }

  /**
   * Stops the queue's start and wake-ups. Mid-start, the try under way is let finish (pg-boss
   * cannot be interrupted) and a waiting retry is dropped. With a host of its own, pg-boss is
   * then stopped, a step under way finishing first (at most `timeoutMs`); a shared host is
   * stopped by its owner once every queue stopped. The database stays open (it is the BFF's).
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#state = 'stopped';
    this.#stopped.abort();
    await this.#starting;
    if (this.#ownsHost) await this.#host.stop(timeoutMs);
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
        !this.#stopped.signal.aborted &&
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
