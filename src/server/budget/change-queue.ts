import { EventEmitter } from 'node:events';
import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { QueueLifecycle, type JobQueueHost, type QueueLog } from '../db/job-queue.ts';
import { ChangeRunner, type SendStep } from './change-runner.ts';
import type { DeviceBudgetStore } from './device-budget-store.ts';
import {
  statusOf,
  type ChangeOwner,
  type NewQueuedChange,
  type QueuedChangeRow,
  type QueueOutcome,
} from './queued-change-rows.ts';
import type { QueuedChangeStore } from './queued-change-store.ts';

/** The pg-boss queue of queued changes: one job runs the due steps of one change. */
export const CHANGE_QUEUE = 'queued-change';

const PRUNE_EVERY_RECHECKS = 60;
const SETTLED_POLL_MS = 250;

export interface ChangeQueueOptions {
  /** pg-boss's minimum is 0.5 s. Default 1. */
  pollingIntervalSeconds?: number | undefined;
  /** Longer than a step's worst case: the ledger's lease plus the status reads, s. Default 120. */
  stepExpireSeconds?: number | undefined;
  superviseIntervalSeconds?: number | undefined;
  /** Default 1000 ms: steps are due on the upstream's clock, which the sandbox moves. */
  recheckIntervalMs?: number | undefined;
}

export type ChangeQueueState = 'starting' | 'ready' | 'stopped';

interface JobData {
  changeId: string;
}

/**
 * The durable queue of changes the budget cannot carry now (decision 007, section 2), on pg-boss
 * (decision 005): one job per change as its singleton key (`stately`), so at most one instance
 * sends a change's steps at a time. When a change is due is decided on the upstream's clock, not
 * by pg-boss: a real-time `startAfter` goes at the wrong moment when the sandbox moves the clock.
 */
export class ChangeQueue {
  readonly #life: QueueLifecycle;
  readonly #store: QueuedChangeStore;
  readonly #runner: ChangeRunner;
  readonly #budget: DeviceBudgetStore;
  readonly #upstreamNow: () => number;
  readonly #log: QueueLog;
  readonly #options: ChangeQueueOptions;
  readonly #onChange: ((row: QueuedChangeRow) => void) | undefined;
  readonly #changed = new EventEmitter();
  /** The re-check leaves these to their job. */
  readonly #running = new Set<string>();
  #workerId: string | undefined;
  #state: ChangeQueueState = 'starting';
  #recheckTimer: NodeJS.Timeout | undefined;
  #rechecking: Promise<void> | undefined;
  #rechecks = 0;

  /**
   * @param options.upstreamNow the upstream's clock, epoch ms.
   * @param options.onChange told once per write of a change's row; must not throw.
   */
  constructor(options: {
    handle: DatabaseHandle;
    /** The BFF's shared pg-boss; default one of the queue's own. */
    host?: JobQueueHost | undefined;
    store: QueuedChangeStore;
    budget: DeviceBudgetStore;
    send: SendStep;
    upstreamNow: () => number;
    log: QueueLog;
    options?: ChangeQueueOptions | undefined;
    onChange?: ((row: QueuedChangeRow) => void) | undefined;
  }) {
    this.#onChange = options.onChange;
    this.#life = new QueueLifecycle({
      handle: options.handle,
      host: options.host,
      log: options.log,
      name: 'queued change queue',
      whileDown: 'queued changes wait',
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

  get state(): ChangeQueueState {
    return this.#state;
  }

  /**
   * @returns queued with its plan, the change an earlier request with the same key made, or
   *   refused `budget_too_tight` with the earliest start the budget allows.
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

  /** Works while none of its steps has started; undefined `status` when the owner has none. */
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

  row(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    changeId: string,
  ): Promise<QueuedChangeRow | undefined> {
    return this.#store.findOwned(owner, changeId);
  }

  async status(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    changeId: string,
  ): Promise<QueuedChangeStatus | undefined> {
    const row = await this.#store.findOwned(owner, changeId);
    return row ? statusOf(row) : undefined;
  }

  async list(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    options: { waiting?: boolean; deviceId?: string; limit?: number } = {},
  ): Promise<QueuedChangeStatus[]> {
    return (await this.#store.list(owner, options)).map(statusOf);
  }

  /**
   * Waits at most `timeoutMs` (real time) for the owner's change to end. With `untilWaiting`, also
   * stops once its next step waits for a later slot, so a replace is answered once its cancel went.
   */
  async settled(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    changeId: string,
    timeoutMs: number,
    options: { untilWaiting?: boolean } = {},
  ): Promise<QueuedChangeStatus | undefined> {
    const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#life.signal]);
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

  /** Starts in the background, retrying with back-off until stopped; never rejects. Idempotent. */
  start(): Promise<void> {
    return this.#life.start(() => this.#startOnce());
  }

  /** A change being sent finishes its step first (at most `timeoutMs`). */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#state = 'stopped';
    clearTimeout(this.#recheckTimer);
    await this.#life.halt();
    await this.#rechecking;
    await this.#life.stopHost(timeoutMs);
  }

  /** Tests call it after moving the clock. Does nothing before the queue runs. */
  async recheck(): Promise<void> {
    if (this.#state !== 'ready') return;
    const { ids } = await this.#store.due(this.#upstreamNow());
    await this.#wake(ids.filter((id) => !this.#running.has(id)));
  }

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

  async #startOnce(): Promise<void> {
    await this.#life.host.withStarted(async (boss) => {
      if (this.#life.signal.aborted) return;
      await boss.createQueue(CHANGE_QUEUE, {
        policy: 'stately',
        expireInSeconds: this.#options.stepExpireSeconds ?? 120,
        // The re-check wakes a change anyway; retries only rerun a dead BFF's job sooner.
        retryLimit: 10,
        retryDelay: 1,
        retryBackoff: true,
        retryDelayMax: 30,
      });
      if (this.#life.signal.aborted) return;
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

  #scheduleRecheck(delayMs: number): void {
    if (this.#life.signal.aborted) return;
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
      if (nextAtMs !== undefined) delayMs = Math.min(intervalMs, nextAtMs - nowMs);
      this.#rechecks += 1;
      if (this.#rechecks % PRUNE_EVERY_RECHECKS === 0) await this.#budget.prune(nowMs);
    } catch (error) {
      if (!this.#life.signal.aborted)
        this.#log.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'queued changes could not be checked; trying again',
        );
    }
    this.#scheduleRecheck(delayMs);
  }

  async #wake(changeIds: readonly string[]): Promise<void> {
    const boss = this.#life.host.boss;
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
      // Retried by pg-boss and the re-check; the steps' keys make that safe.
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
