import { EventEmitter } from 'node:events';
import type { QueuedChangeStatus } from '../../domain/queued-change.ts';
import type { DatabaseHandle } from '../../infra/database.ts';
import { JobQueueHost, startUntilStopped } from '../db/job-queue.ts';
import { ChangeRunner, type SendStep } from './change-runner.ts';
import type { DeviceBudgetStore } from './device-budget-store.ts';
import { statusOf, type ChangeOwner, type QueuedChangeRow } from './queued-change-rows.ts';
import type { NewQueuedChange, QueuedChangeStore, QueueOutcome } from './queued-change-store.ts';

/** The pg-boss queue of queued changes: one job runs the due steps of one change. */
export const CHANGE_QUEUE = 'queued-change';

/** How often the budget's old rows are pruned, in re-checks. */
const PRUNE_EVERY_RECHECKS = 60;
/** How often {@link ChangeQueue.settled} reads a change another instance may be sending, ms. */
const SETTLED_POLL_MS = 250;

/** Timings of the queue; tests shorten them. */
export interface ChangeQueueOptions {
  /** How often an idle worker looks for a job, s (pg-boss's minimum is 0.5). Default 1. */
  pollingIntervalSeconds?: number | undefined;
  /**
   * How long a job may run before it counts as lost (its BFF died) and is run again, s. Longer
   * than a step's worst case: the ledger's lease plus the status reads. Default 120.
   */
  stepExpireSeconds?: number | undefined;
  /** How often pg-boss looks for jobs that expired, s. Default 10. */
  superviseIntervalSeconds?: number | undefined;
  /**
   * How often waiting changes are compared with the upstream clock, ms (default 1000): a step is
   * due on the UPSTREAM's clock, which the sandbox moves, so a real-time `startAfter` cannot say
   * when. Sooner when the next change is due sooner.
   */
  recheckIntervalMs?: number | undefined;
}

/** Where the queue writes its failures (pino's logger fits). */
export interface ChangeQueueLog {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

/** Where the queue stands: `starting` until its worker runs (tries again after failures). */
export type ChangeQueueState = 'starting' | 'ready' | 'stopped';

interface JobData {
  changeId: string;
}

/**
 * The durable queue of changes the budget of upstream calls cannot carry now
 * (docs/decisions/007-device-call-budget.md, section 2), on pg-boss like the fleet jobs
 * (docs/decisions/005-fleet-job-queue.md): its own queue `queued-change` in `bff_queue`, one job
 * per change as its singleton key under the `stately` policy, so at most one instance sends a
 * change's steps at a time; a job whose BFF died expires and runs again.
 *
 * When a change is due is decided on the upstream's clock, not by pg-boss: every instance
 * compares the waiting changes' `nextAt` with the upstream clock each second (one indexed query,
 * however many changes wait) and wakes the due ones with a job that starts now. A job per
 * waiting change, sent again each second, would cost a write per change per second; a job sent
 * once with a real-time `startAfter` goes at the wrong moment when the upstream clock moves (the
 * sandbox's admin API) and holds the change's one waiting slot until then.
 *
 * What a change is and how it is planned live in its store ({@link QueuedChangeStore}); its
 * steps go through the product's `send` ({@link ChangeRunner}). Made at once, started in the
 * background ({@link ChangeQueue.start}): changes may be queued, read and withdrawn before, and
 * are sent once it runs.
 */
export class ChangeQueue {
  readonly #host: JobQueueHost;
  /** Whether the host is the queue's own, stopped with it. */
  readonly #ownsHost: boolean;
  readonly #store: QueuedChangeStore;
  readonly #runner: ChangeRunner;
  readonly #budget: DeviceBudgetStore;
  readonly #upstreamNow: () => number;
  readonly #log: ChangeQueueLog;
  readonly #options: ChangeQueueOptions;
  readonly #onChange: ((row: QueuedChangeRow) => void) | undefined;
  readonly #stopped = new AbortController();
  /** Told the ID of every change this instance wrote. */
  readonly #changed = new EventEmitter();
  /** Changes this instance is running now; the re-check leaves them to their job. */
  readonly #running = new Set<string>();
  #workerId: string | undefined;
  #state: ChangeQueueState = 'starting';
  #starting: Promise<void> | undefined;
  #recheckTimer: NodeJS.Timeout | undefined;
  #rechecking: Promise<void> | undefined;
  #rechecks = 0;

  /**
   * @param options.send the product's sending of one step through the command ledger.
   * @param options.upstreamNow the upstream's clock, epoch ms (`buildServerApp`'s `upstreamClock`).
   * @param options.onChange told every change of a change's row this instance wrote (queued,
   *   planned anew, a step under way or answered, ended, withdrawn), once per write: the product
   *   publishes events and notifications from it. Must not throw.
   */
  constructor(options: {
    handle: DatabaseHandle;
    /**
     * The BFF's one pg-boss, shared with its other queues and stopped by the BFF; default one of
     * the queue's own, stopped with it.
     */
    host?: JobQueueHost | undefined;
    store: QueuedChangeStore;
    budget: DeviceBudgetStore;
    send: SendStep;
    upstreamNow: () => number;
    log: ChangeQueueLog;
    options?: ChangeQueueOptions | undefined;
    onChange?: ((row: QueuedChangeRow) => void) | undefined;
  }) {
    this.#onChange = options.onChange;
    this.#ownsHost = options.host === undefined;
    this.#host =
      options.host ??
      new JobQueueHost(options.handle, options.log, {
        superviseIntervalSeconds: options.options?.superviseIntervalSeconds,
      });
    this.#store = options.store;
    this.#budget = options.budget;
    this.#upstreamNow = options.upstreamNow;
    this.#log = options.log;
    this.#options = options.options ?? {};
    this.#changed.setMaxListeners(0);
    const expireMs = (this.#options.stepExpireSeconds ?? 120) * 1000;
    const superviseMs = (this.#options.superviseIntervalSeconds ?? 10) * 1000;
    this.#runner = new ChangeRunner({
      store: options.store,
      budget: options.budget,
      send: options.send,
      upstreamNow: options.upstreamNow,
      // A step under way is looked at again once pg-boss would have handed out its job again.
      leaseMs: expireMs + superviseMs,
      log: options.log,
      onChange: (row) => this.#told(row),
    });
  }

  /** `starting` until the worker runs, then `ready`; `stopped` once {@link ChangeQueue.stop} began. */
  get state(): ChangeQueueState {
    return this.#state;
  }

  /**
   * Queues a change (planned after the changes of its devices queued before it) and, when its
   * first step is due now and the queue runs, wakes this instance's worker for it at once.
   *
   * @returns the store's outcome: queued with its plan, the change an earlier request with the
   *   same key made, or refused `budget_too_tight` with the earliest start the budget allows.
   */
  async enqueue(change: Omit<NewQueuedChange, 'nowMs'>): Promise<QueueOutcome> {
    const outcome = await this.#store.create({ ...change, nowMs: this.#upstreamNow() });
    if (outcome.queued) {
      this.#told(outcome.row);
      if ((outcome.row.nextAtMs ?? Infinity) <= this.#upstreamNow())
        await this.#wake([outcome.row.id]);
    }
    return outcome;
  }

  /**
   * Withdraws the owner's change while none of its steps has started.
   *
   * @returns `withdrawn` and the change as it now stands; undefined `status` when the owner has
   *   no such change.
   */
  async withdraw(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    changeId: string,
    detail?: string,
  ): Promise<{ withdrawn: boolean; status: QueuedChangeStatus | undefined }> {
    const { withdrawn, row } = await this.#store.withdraw(
      owner,
      changeId,
      this.#upstreamNow(),
      detail,
    );
    if (withdrawn && row) this.#told(row);
    return { withdrawn, status: row ? statusOf(row) : undefined };
  }

  /** The owner's change made by a request with this `Idempotency-Key`, or undefined. */
  async findByKey(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    idempotencyKey: string,
  ): Promise<QueuedChangeRow | undefined> {
    return this.#store.findByKey(owner, idempotencyKey);
  }

  /** The owner's change as stored (its steps' calls, who made it), or undefined. */
  row(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    changeId: string,
  ): Promise<QueuedChangeRow | undefined> {
    return this.#store.findOwned(owner, changeId);
  }

  /** The owner's change as it stands, or undefined. */
  async status(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    changeId: string,
  ): Promise<QueuedChangeStatus | undefined> {
    const row = await this.#store.findOwned(owner, changeId);
    return row ? statusOf(row) : undefined;
  }

  /** The owner's changes, newest first (still waiting only, one device only, at most `limit`). */
  async list(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    options: { waiting?: boolean; deviceId?: string; limit?: number } = {},
  ): Promise<QueuedChangeStatus[]> {
    return (await this.#store.list(owner, options)).map(statusOf);
  }

  /**
   * Waits at most `timeoutMs` (real time) for the owner's change to end, for a route that sends a
   * change due now and answers with its outcome; what it found when the time is up otherwise.
   * With `untilWaiting`, it also stops at a change whose next step waits for a later slot (on
   * the upstream clock) with none under way: a replace whose submission goes in a minute is
   * answered queued once its cancel went, not after that minute.
   */
  async settled(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    changeId: string,
    timeoutMs: number,
    options: { untilWaiting?: boolean } = {},
  ): Promise<QueuedChangeStatus | undefined> {
    const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#stopped.signal]);
    for (;;) {
      const row = await this.#store.findOwned(owner, changeId);
      const waitsLater =
        options.untilWaiting === true &&
        row !== undefined &&
        row.steps.every((step) => step.state !== 'sending') &&
        (row.nextAtMs ?? Infinity) > this.#upstreamNow();
      if (
        !row ||
        (row.state !== 'queued' && row.state !== 'sending') ||
        waitsLater ||
        deadline.aborted
      )
        return row ? statusOf(row) : undefined;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.#changed.off(changeId, done);
          deadline.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, SETTLED_POLL_MS);
        this.#changed.on(changeId, done);
        deadline.addEventListener('abort', done);
      });
    }
  }

  /**
   * Starts the queue in the background: installs or migrates pg-boss's schema, creates the queue
   * and this instance's worker, then re-checks the waiting changes every second. A try that fails
   * is logged and tried again after 1 s, doubling up to 30 s, until it works or
   * {@link ChangeQueue.stop} is called; the returned promise never rejects. Calling it again
   * returns the same promise.
   */
  start(): Promise<void> {
    this.#starting ??= this.#startUntilStopped();
    return this.#starting;
  }

  /**
   * Stops the re-checks and the worker; a change being sent finishes its step first (at most
   * `timeoutMs`). The database stays open (it is the BFF's).
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#state = 'stopped';
    this.#stopped.abort();
    clearTimeout(this.#recheckTimer);
    await this.#starting;
    await this.#rechecking;
    if (this.#ownsHost) await this.#host.stop(timeoutMs);
  }

  /**
   * Wakes every waiting change due on the upstream clock now (tests call it after moving the
   * clock rather than wait for the next re-check). Does nothing before the queue runs.
   */
  async recheck(): Promise<void> {
    if (this.#state !== 'ready') return;
    const { ids } = await this.#store.due(this.#upstreamNow());
    await this.#wake(ids.filter((id) => !this.#running.has(id)));
  }

  /** Tells this instance's waiters and the product's listener of a row this instance wrote. */
  #told(row: QueuedChangeRow): void {
    this.#changed.emit(row.id, row);
    try {
      this.#onChange?.(row);
    } catch (error) {
      this.#log.warn(
        { changeId: row.id, reason: error instanceof Error ? error.message : String(error) },
        'a queued change was written but its listener failed',
      );
    }
  }

  async #startUntilStopped(): Promise<void> {
    const attempt = await startUntilStopped(
      () => this.#startOnce(),
      this.#stopped.signal,
      ({ attempt: failed, retryInMs, reason }) =>
        this.#log.error(
          { attempt: failed, retryInMs, reason },
          'queued change queue did not start; queued changes wait until it does; trying again',
        ),
    );
    if (attempt !== undefined && attempt > 1 && this.#state === 'ready')
      this.#log.info({ attempt }, 'queued change queue started after failed tries');
  }

  async #startOnce(): Promise<void> {
    await this.#host.withStarted(async (boss) => {
      if (this.#stopped.signal.aborted) return;
      await boss.createQueue(CHANGE_QUEUE, {
        policy: 'stately',
        expireInSeconds: this.#options.stepExpireSeconds ?? 120,
        // The re-check wakes a change again whatever pg-boss gave up; these retries only make a
        // job whose BFF died run again sooner.
        retryLimit: 10,
        retryDelay: 1,
        retryBackoff: true,
        retryDelayMax: 30,
      });
      if (this.#stopped.signal.aborted) return;
      this.#workerId = await boss.work<JobData>(
        CHANGE_QUEUE,
        { pollingIntervalSeconds: this.#options.pollingIntervalSeconds ?? 1, batchSize: 1 },
        async (jobs) => {
          for (const job of jobs) await this.#run(job.data.changeId);
        },
      );
    });
    if (this.#workerId === undefined) return;
    if (this.#state === 'starting') this.#state = 'ready';
    this.#scheduleRecheck(0);
  }

  /** The next re-check in `delayMs`, at most the interval (real time). */
  #scheduleRecheck(delayMs: number): void {
    if (this.#stopped.signal.aborted) return;
    const intervalMs = this.#options.recheckIntervalMs ?? 1_000;
    this.#recheckTimer = setTimeout(
      () => {
        this.#rechecking = this.#recheckAndSchedule();
      },
      Math.max(0, Math.min(intervalMs, delayMs)),
    );
    this.#recheckTimer.unref();
  }

  async #recheckAndSchedule(): Promise<void> {
    const intervalMs = this.#options.recheckIntervalMs ?? 1_000;
    let delayMs = intervalMs;
    try {
      const nowMs = this.#upstreamNow();
      const { ids, nextAtMs } = await this.#store.due(nowMs);
      await this.#wake(ids.filter((id) => !this.#running.has(id)));
      // The next change due before the interval is up is woken on time.
      if (nextAtMs !== undefined) delayMs = Math.min(intervalMs, nextAtMs - nowMs);
      this.#rechecks += 1;
      if (this.#rechecks % PRUNE_EVERY_RECHECKS === 0) await this.#budget.prune(nowMs);
    } catch (error) {
      if (!this.#stopped.signal.aborted)
        this.#log.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'queued changes could not be checked; trying again',
        );
    }
    this.#scheduleRecheck(delayMs);
  }

  /** Asks for a job for each change (one waits per change at most) and wakes the local worker. */
  async #wake(changeIds: readonly string[]): Promise<void> {
    const boss = this.#host.boss;
    if (!boss || this.#workerId === undefined || changeIds.length === 0) return;
    for (const changeId of changeIds)
      await boss.send(CHANGE_QUEUE, { changeId } satisfies JobData, { singletonKey: changeId });
    boss.notifyWorker(this.#workerId);
  }

  async #run(changeId: string): Promise<void> {
    this.#running.add(changeId);
    try {
      await this.#runner.run(changeId);
    } catch (error) {
      // pg-boss runs the job again after its retry delay, and the re-check wakes it anyway; the
      // steps' keys make that safe.
      this.#log.warn(
        { changeId, reason: error instanceof Error ? error.message : String(error) },
        'queued change could not be run; it will be run again',
      );
      throw error;
    } finally {
      this.#running.delete(changeId);
    }
  }
}
