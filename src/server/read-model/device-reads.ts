import type { FastifyBaseLogger } from 'fastify';
import type { StatusRecord } from '../../domain/command.ts';
import { MAX_HISTORY_RANGE_MS } from '../../domain/history.ts';
import { liveSlotsOf, slotsToRead, type ReadReason } from '../../domain/refresh-policy.ts';
import { busyUntilMs } from '../ledger/budgeted-history.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import { isProblem, ProblemError } from '../http/problem.ts';
import { SESSION_ABSOLUTE_TIMEOUT_MS } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { ReadModel } from './read-model.ts';
import { ReadModelStore, type ClaimedDevice } from './read-model-store.ts';

/** How often each instance looks for devices due a read, ms (real time; due times are upstream). */
export const READ_TICK_MS = 1_000;
/** Devices one look takes at most, and reads in flight at once per instance. */
export const READ_CLAIM_LIMIT = 16;
export const READS_AT_ONCE = 4;
/** How long a device taken for a read belongs to this instance, ms (upstream clock). */
export const READ_LEASE_MS = 2 * 60_000;
/** A read that failed is tried again after 15 s, doubling to at most this, ms. */
export const MAX_READ_BACKOFF_MS = 10 * 60_000;
/** An account whose sealed secret cannot be opened is looked at again after this, ms. */
const NO_CALLER_WAIT_MS = 5 * 60_000;
/** How often (real time) an instance prunes old changes and idle accounts' secrets, ms. */
const PRUNE_EVERY_MS = 60 * 60_000;

/** What the refresher did, counted since it started (the report's figures; `/readyz` later). */
export interface ReadCounts {
  /** Devices read (each a paged history read of one or two 30-day ranges). */
  reads: number;
  /** Upstream calls made (one per page). */
  calls: number;
  /** Reads put off because the device's budget had no slot (or a queued change goes first). */
  deferred: number;
  /** 429 answers (the device marked busy until its `Retry-After`). */
  rateLimited: number;
  failed: number;
  /** Reads by why the device was due. */
  byReason: Partial<Record<ReadReason | 'unknown', number>>;
}

/** One device read as it ended, for whoever watches the refresher (the bench, tests). */
export interface DeviceReadOutcome {
  deviceId: string;
  /** Why the device was due (`unknown`: planned before reasons were kept). */
  reason: ReadReason | 'unknown';
  /** `read`: it read at least one page; `deferred`: its budget had no slot; `failed`. */
  outcome: 'read' | 'deferred' | 'failed';
  /** Upstream calls this read made (one per page). */
  calls: number;
}

/**
 * The refresher (docs/architecture.md, Read model): each BFF instance looks every second for the
 * devices due a read on the upstream clock (`device_read_state.next_read_at`), takes up to
 * {@link READ_CLAIM_LIMIT} of them with `FOR UPDATE SKIP LOCKED` and a lease, so no two instances
 * read one device at once, and reads each: one paged history read over the 30-day ranges holding
 * its open commands and the batches looked for on it (two ranges when they span two), each page
 * after taking a `read` slot of the device's budget (`DeviceBudgetStore.reserve`, which keeps
 * slots a queued change waits for). A device the budget refuses is read at the time the store
 * names; a 429 marks it busy until its `Retry-After` (never retried at once); another failure is
 * tried again after a growing wait.
 *
 * A timer rather than pg-boss: due times are on the upstream's clock, which pg-boss cannot follow
 * (the sandbox's jumps), each device's row already holds its due time, and one indexed query per
 * second finds them; the change queue wakes its jobs the same way.
 */
export class DeviceReads {
  readonly #model: ReadModel;
  readonly #store: ReadModelStore;
  readonly #budget: DeviceBudgetStore;
  readonly #upstream: UpstreamApi;
  readonly #now: () => number;
  readonly #log: FastifyBaseLogger;
  readonly #tickMs: number;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #again = false;
  #prunedAtMs = 0;
  #started = false;
  #closed = false;
  readonly counts: ReadCounts = {
    reads: 0,
    calls: 0,
    deferred: 0,
    rateLimited: 0,
    failed: 0,
    byReason: {},
  };
  /** Called after each device read (read, deferred or failed); never for the product API. */
  onRead: ((read: DeviceReadOutcome) => void) | undefined = undefined;

  /**
   * @param options.now the upstream's clock, epoch ms.
   * @param options.tickMs how often to look for due devices (0: only when `runDue` is called).
   */
  constructor(options: {
    model: ReadModel;
    budget: DeviceBudgetStore;
    upstream: UpstreamApi;
    now: () => number;
    log: FastifyBaseLogger;
    tickMs?: number | undefined;
  }) {
    this.#model = options.model;
    this.#store = options.model.store;
    this.#budget = options.budget;
    this.#upstream = options.upstream;
    this.#now = options.now;
    this.#log = options.log;
    this.#tickMs = options.tickMs ?? READ_TICK_MS;
    this.#model.onDue = () => this.wake();
  }

  /** Starts looking for due devices; adopts the batches still confirming first. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.#model.adoptConfirmingBatches().catch((error: unknown) => {
      this.#log.warn({ err: error }, 'read model: batches still confirming were not adopted');
    });
    this.#schedule();
  }

  /** Stops looking, and waits for the reads under way. */
  async stop(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }

  /** A device became due sooner: look at once (on the next turn of the event loop). */
  wake(): void {
    if (!this.#started || this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.runDue(), 0);
    this.#timer.unref();
  }

  /**
   * Reads every device due now, and resolves once they are read (or put off). A call while a
   * look is under way waits for it and looks again, so everything due when it was called is
   * done when it resolves. For tests and the bench, which move the upstream clock.
   */
  runDue(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#pass) {
      // The look under way looks once more before it ends.
      this.#again = true;
      return this.#pass;
    }
    this.#pass = this.#loop().finally(() => {
      this.#pass = undefined;
      this.#schedule();
    });
    return this.#pass;
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      let claimed: ClaimedDevice[];
      try {
        const nowMs = this.#now();
        claimed = await this.#store.claimDue(nowMs, nowMs + READ_LEASE_MS, READ_CLAIM_LIMIT);
      } catch (error) {
        this.#log.warn({ err: error }, 'read model: looking for devices to read failed');
        return;
      }
      const queue = [...claimed];
      const worker = async () => {
        for (let device = queue.shift(); device; device = queue.shift())
          await this.#read(device).catch((error: unknown) => {
            this.#log.warn(
              { err: error, deviceId: device.deviceId },
              'read model: a device read failed',
            );
          });
      };
      await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, queue.length) }, worker));
      if (claimed.length === READ_CLAIM_LIMIT) this.#again = true;
    } while (this.#again && !this.#closed);
    await this.#pruneNowAndThen();
  }

  /**
   * Deletes changes past their week and forgets the sealed secret of accounts no session used
   * for a session's longest lifetime that have nothing left to read (docs/security.md).
   */
  async #pruneNowAndThen(): Promise<void> {
    if (Date.now() - this.#prunedAtMs < PRUNE_EVERY_MS) return;
    this.#prunedAtMs = Date.now();
    const nowMs = this.#now();
    await this.#store.prune(nowMs - SESSION_ABSOLUTE_TIMEOUT_MS, nowMs).catch((error: unknown) => {
      this.#log.warn({ err: error }, 'read model: pruning failed; it is tried again later');
    });
  }

  #schedule(): void {
    if (!this.#started || this.#closed || this.#tickMs <= 0 || this.#pass) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.runDue(), this.#tickMs);
    this.#timer.unref();
  }

  /** One device's read: its ranges, page by page, each after a slot of its budget. */
  async #read(device: ClaimedDevice): Promise<void> {
    const { account, deviceId, state } = device;
    const caller = this.#model.callerOf(account, device.secretCiphertext);
    if (!caller) {
      await this.#model.releaseRead(account, deviceId, { atMs: this.#now() + NO_CALLER_WAIT_MS });
      return;
    }
    const openCommands = await this.#store.openCommands(this.#store.db, account, deviceId);
    const confirmations = await this.#store.confirmationsOf(this.#store.db, account, deviceId);
    const nowMs = this.#now();
    const refreshState = {
      lastReadAtMs: state.readAt?.getTime(),
      openCommands,
      confirmations: confirmations.map(ReadModelStore.pendingOf),
      requestedSlots: state.slotsRequested,
      slotsRead: state.slotsRead,
    };
    const slots = slotsToRead(refreshState, nowMs);
    // The read tells the device's present once its live slots are in, whatever asked-for history
    // is left for its next read.
    const live = liveSlotsOf(refreshState, nowMs);
    const records: StatusRecord[] = [];
    const completeSlots: number[] = [];
    let readAtMs: number | undefined;
    let notBeforeMs: number | undefined;
    const reason = (state.nextReadReason ?? 'unknown') as ReadReason | 'unknown';
    let calls = 0;
    const tell = (outcome: DeviceReadOutcome['outcome']) =>
      this.onRead?.({ deviceId, reason, outcome, calls });
    try {
      read: for (const slot of slots) {
        const range = {
          startTime: new Date(slot).toISOString(),
          endTime: new Date(slot + MAX_HISTORY_RANGE_MS).toISOString(),
        };
        for (let page = 1; ; page++) {
          const atMs = this.#now();
          const reservation = await this.#budget.reserve({
            region: account.region,
            deviceIds: [deviceId],
            kind: 'read',
            nowMs: atMs,
          });
          if (!reservation.granted) {
            notBeforeMs = reservation.nextFreeAtMs;
            break read;
          }
          readAtMs ??= atMs;
          this.counts.calls += 1;
          calls += 1;
          let answer;
          try {
            answer = await this.#upstream.historyPage(caller, deviceId, range, page);
          } finally {
            await this.#budget.settle(reservation.slotIds, this.#now());
          }
          records.push(...answer.commands);
          if (!answer.more) break;
        }
        completeSlots.push(slot);
      }
    } catch (error) {
      tell('failed');
      await this.#failed(device, error);
      return;
    }
    if (readAtMs === undefined) {
      tell('deferred');
      this.counts.deferred += 1;
      await this.#model.releaseRead(account, deviceId, { atMs: notBeforeMs ?? nowMs });
      return;
    }
    if (notBeforeMs !== undefined) this.counts.deferred += 1;
    this.counts.reads += 1;
    tell('read');
    this.counts.byReason[reason] = (this.counts.byReason[reason] ?? 0) + 1;
    await this.#model.applyRead(account, deviceId, {
      readAtMs,
      records,
      completeSlots,
      complete: live.length > 0 && live.every((slot) => completeSlots.includes(slot)),
      notBeforeMs,
    });
  }

  async #failed(device: ClaimedDevice, error: unknown): Promise<void> {
    const { account, deviceId, state } = device;
    const nowMs = this.#now();
    if (isProblem(error, 'device_rate_limited')) {
      // Another client of the account spent the device's calls: busy until the vendor said.
      this.counts.rateLimited += 1;
      const untilMs = busyUntilMs(error, nowMs);
      await this.#budget.markBusy(account.region, [deviceId], untilMs, nowMs);
      await this.#model.releaseRead(account, deviceId, { atMs: untilMs });
      return;
    }
    this.counts.failed += 1;
    if (isProblem(error, 'unknown_or_unbound')) {
      // Its site is no longer bound to the account: nothing to read until it is again.
      await this.#model.releaseRead(account, deviceId, { unbound: true });
      return;
    }
    if (isProblem(error, 'not_signed_in')) await this.#store.forgetAccountSecret(account);
    const backoffMs = Math.min(MAX_READ_BACKOFF_MS, 15_000 * 2 ** state.failures);
    this.#log.warn(
      {
        deviceId,
        ...(error instanceof ProblemError ? { code: error.problem.code } : { err: error }),
        retryInMs: backoffMs,
      },
      'read model: reading a device history failed; it is read again later',
    );
    await this.#model.releaseRead(account, deviceId, { atMs: nowMs + backoffMs, failed: true });
  }
}
