import { setTimeout as sleep } from 'node:timers/promises';
import type { PgBoss } from 'pg-boss';
import type { DatabaseHandle } from '#infra/database.ts';
import { QueueLifecycle, type JobQueueHost, type QueueLog } from '../db/job-queue.ts';
import { ProblemError } from '../http/problem.ts';
import type { FleetRunner } from './fleet-runner.ts';

/** docs/fleet-dispatch.md. */
export const FLEET_STEP_QUEUE = 'fleet-job-step';

/** A running step waits itself for a next step due within this, rather than queue it, ms. */
const HOLD_MS = 5_000;

/** A start on an existing schema takes ~1 s. */
const STARTING_RETRY_AFTER_S = 2;

export interface FleetQueueOptions {
  /** pg-boss's minimum is 0.5 s. Default 1. */
  pollingIntervalSeconds?: number | undefined;
  /** Longer than a batch's worst case: the ledger's lease plus the status reads, s. Default 120. */
  stepExpireSeconds?: number | undefined;
  /** With the expiry, how long a dead BFF's step waits before it runs again, s. Default 10. */
  superviseIntervalSeconds?: number | undefined;
  /** Test-only: awaited in each start try before the queue and worker are made. */
  beforeWorker?: ((stopped: AbortSignal) => Promise<void>) | undefined;
  /** The BFF's shared pg-boss; default one of the queue's own. */
  host?: JobQueueHost | undefined;
}

export type FleetQueueState = 'starting' | 'ready' | 'stopped';

interface StepData {
  jobId: string;
}

/**
 * The durable queue behind fleet jobs (decision 005): each step a pg-boss job with the fleet job's
 * ID as singleton key (`stately`), so one step of a job runs at a time across instances. Started in
 * the background; until then {@link FleetQueue.requireReady} refuses.
 */
export class FleetQueue {
  readonly #life: QueueLifecycle;
  readonly #runner: FleetRunner;
  readonly #log: QueueLog;
  readonly #options: FleetQueueOptions;
  readonly #stepExpireSeconds: number;
  #state: FleetQueueState = 'starting';
  #failedStarts = 0;
  #nextTryAtMs: number | undefined;
  #workerId: string | undefined;

  /** Nothing is loaded, read or written until {@link FleetQueue.start}. */
  constructor(
    handle: DatabaseHandle,
    runner: FleetRunner,
    log: QueueLog,
    options: FleetQueueOptions = {},
  ) {
    this.#life = new QueueLifecycle({
      handle,
      host: options.host,
      log,
      name: 'fleet job queue',
      whileDown: 'fleet jobs are refused',
      superviseIntervalSeconds: options.superviseIntervalSeconds,
    });
    this.#runner = runner;
    this.#log = log;
    this.#options = options;
    this.#stepExpireSeconds = options.stepExpireSeconds ?? 120;
  }

  get state(): FleetQueueState {
    return this.#state;
  }

  /** Starts in the background, retrying with back-off until stopped; never rejects. Idempotent. */
  start(): Promise<void> {
    return this.#life.start(() => this.#startOnce(), {
      onFailure: ({ retryInMs }) => {
        this.#failedStarts += 1;
        this.#nextTryAtMs = Date.now() + retryInMs;
      },
    });
  }

  /** @throws ProblemError 503 `fleet_jobs_starting` with `Retry-After` (s) while not started. */
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

  async #startOnce(): Promise<void> {
    // pg-boss may be started again after a failed start.
    await this.#life.host.withStarted(async () => undefined);
    await this.#options.beforeWorker?.(this.#life.signal);
    if (this.#life.signal.aborted) return;
    await this.#life.host.withStarted(async (boss) => {
      if (this.#life.signal.aborted) return;
      await boss.createQueue(FLEET_STEP_QUEUE, {
        policy: 'stately',
        expireInSeconds: this.#stepExpireSeconds,
        retryLimit: 1000,
        retryDelay: 1,
        retryBackoff: true,
        retryDelayMax: 30,
      });
      if (this.#life.signal.aborted) return;
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

  /** Also while a graceful stop lets a step queue its next one. @throws as {@link requireReady}. */
  #started(): PgBoss {
    const boss = this.#life.host.boss;
    if (boss && this.#workerId !== undefined) return boss;
    this.requireReady();
    throw new Error('the fleet job queue is ready without a worker');
  }

  /** Unless one already waits. */
  async wake(jobId: string, atMs?: number): Promise<void> {
    await this.#started().send(FLEET_STEP_QUEUE, { jobId } satisfies StepData, {
      singletonKey: jobId,
      ...(atMs === undefined ? {} : { startAfter: new Date(atMs) }),
    });
  }

  /** A cancel need not wait for the rate, nor a resume (its step holds the rate itself). */
  async hurry(jobId: string): Promise<void> {
    await this.#started().upsert(FLEET_STEP_QUEUE, { jobId } satisfies StepData, {
      singletonKey: jobId,
      startAfter: new Date(),
    });
    if (this.#workerId) this.#started().notifyWorker(this.#workerId);
  }

  /** A try under way finishes (pg-boss cannot be interrupted); a shared host is stopped by its owner. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#state = 'stopped';
    await this.#life.halt();
    await this.#life.stopHost(timeoutMs);
  }

  async #run(jobId: string): Promise<void> {
    // Holding the queue job for steps due within HOLD_MS keeps the rate to the millisecond and costs no
    // queue round trip; past it, or half the expiry, the next step goes back to the queue.
    const heldUntilMs = Date.now() + (this.#stepExpireSeconds * 1000) / 2;
    try {
      let next = await this.#runner.step(jobId);
      while (
        next &&
        !this.#life.signal.aborted &&
        next.atMs - Date.now() <= HOLD_MS &&
        next.atMs < heldUntilMs
      ) {
        await sleep(Math.max(0, next.atMs - Date.now()));
        next = await this.#runner.step(jobId);
      }
      if (next) await this.wake(jobId, next.atMs);
    } catch (error) {
      // Retried by pg-boss; the batch keys make that safe.
      this.#log.warn(
        { jobId, reason: error instanceof Error ? error.message : String(error) },
        'fleet job step failed; it will be run again',
      );
      throw error;
    }
  }
}
