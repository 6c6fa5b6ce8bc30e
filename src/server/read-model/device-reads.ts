import type { FastifyBaseLogger } from 'fastify';
import type { StatusRecord } from '#domain/command.ts';
import { MAX_HISTORY_RANGE_MS } from '#domain/history.ts';
import { liveSlotsOf, slotsToRead, type ReadReason } from '#domain/refresh-policy.ts';
import { busyUntilMs } from '../ledger/budgeted-history.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import { isProblem, ProblemError } from '../http/problem.ts';
import { SESSION_ABSOLUTE_TIMEOUT_MS } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { ReadModel } from './read-model.ts';
import { ReadModelStore, type ClaimedDevice } from './read-model-store.ts';

/** Real time; due times are on the upstream clock. */
export const READ_TICK_MS = 1_000;
/** Also the reads in flight at once per instance. */
export const READ_CLAIM_LIMIT = 16;
export const READS_AT_ONCE = 4;
/** Upstream clock. */
export const READ_LEASE_MS = 2 * 60_000;
/** A failed read is tried again after 15 s, doubling to this. */
export const MAX_READ_BACKOFF_MS = 10 * 60_000;
const NO_CALLER_WAIT_MS = 5 * 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;

export interface ReadCounts {
  reads: number;
  calls: number;
  deferred: number;
  rateLimited: number;
  failed: number;
  byReason: Partial<Record<ReadReason | 'unknown', number>>;
}

export interface DeviceReadOutcome {
  deviceId: string;
  reason: ReadReason | 'unknown';
  outcome: 'read' | 'deferred' | 'failed';
  calls: number;
}

/**
 * The refresher (docs/architecture.md, Read model): each instance claims due devices with
 * `FOR UPDATE SKIP LOCKED` and a lease, and reads each page after a `read` slot of its budget;
 * a 429 marks it busy until its `Retry-After`, never retried at once. A timer rather than pg-boss:
 * due times are on the upstream's clock, which the sandbox moves.
 */
export class DeviceReads {
  readonly #model: ReadModel;
  readonly #store: ReadModelStore;
  readonly #budget: DeviceBudgetStore;
  readonly #upstream: UpstreamApi;
  readonly #now: () => number;
  readonly #log: FastifyBaseLogger;
  readonly #tickMs: number;
  readonly #leaseMs: number;
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
  /** Never for the product API. */
  onRead: ((read: DeviceReadOutcome) => void) | undefined = undefined;

  /** @param options.tickMs 0: only when `runDue` is called. */
  constructor(options: {
    model: ReadModel;
    budget: DeviceBudgetStore;
    upstream: UpstreamApi;
    now: () => number;
    log: FastifyBaseLogger;
    tickMs?: number | undefined;
    /**
     * How long a device claimed for a read stays this instance's, upstream-clock ms (default
     * {@link READ_LEASE_MS}): another instance reads it only after, so the claims of a BFF that
     * died mid-read hold its devices' reads that long. Tests that kill a BFF shorten it.
     */
    leaseMs?: number | undefined;
  }) {
    this.#model = options.model;
    this.#store = options.model.store;
    this.#budget = options.budget;
    this.#upstream = options.upstream;
    this.#now = options.now;
    this.#log = options.log;
    this.#tickMs = options.tickMs ?? READ_TICK_MS;
    this.#leaseMs = options.leaseMs ?? READ_LEASE_MS;
    this.#model.onDue = () => this.wake();
  }

  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.#model.adoptConfirmingBatches().catch((error: unknown) => {
      this.#log.warn({ err: error }, 'read model: batches still confirming were not adopted');
    });
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }

  wake(): void {
    if (!this.#started || this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.runDue(), 0);
    this.#timer.unref();
  }

  /** Resolves once everything due when called is done. For tests and the bench, which move the clock. */
  runDue(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#pass) {
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
        claimed = await this.#store.claimDue(nowMs, nowMs + this.#leaseMs, READ_CLAIM_LIMIT);
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

  /** Forgets the sealed secret of idle accounts with nothing left to read (docs/security.md). */
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

  async #read(device: ClaimedDevice): Promise<void> {
    const { account, deviceId, state } = device;
    const upstreamGeneration = this.#store.upstreamGeneration;
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
    // The device's present is told once its live slots are in, whatever history is left.
    const live = liveSlotsOf(refreshState, nowMs);
    const records: StatusRecord[] = [];
    const completeSlots: number[] = [];
    let readAtMs: number | undefined;
    let notBeforeMs: number | undefined;
    const reason = (state.nextReadReason ?? 'unknown') as ReadReason | 'unknown';
    let calls = 0;
    const startedAtMs = performance.now();
    const tell = (outcome: DeviceReadOutcome['outcome']) => {
      this.onRead?.({ deviceId, reason, outcome, calls });
      this.#log.debug(
        { deviceId, reason, outcome, calls, tookMs: Math.round(performance.now() - startedAtMs) },
        'read model: a device read',
      );
    };
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
      upstreamGeneration,
    });
  }

  async #failed(device: ClaimedDevice, error: unknown): Promise<void> {
    const { account, deviceId, state } = device;
    const nowMs = this.#now();
    if (isProblem(error, 'device_rate_limited')) {
      this.counts.rateLimited += 1;
      const untilMs = busyUntilMs(error, nowMs);
      await this.#budget.markBusy(account.region, [deviceId], untilMs, nowMs);
      await this.#model.releaseRead(account, deviceId, { atMs: untilMs });
      return;
    }
    this.counts.failed += 1;
    if (isProblem(error, 'unknown_or_unbound')) {
      await this.#model.releaseRead(account, deviceId, { unbound: true });
      return;
    }
    if (isProblem(error, 'not_signed_in')) await this.#model.forgetCaller(account);
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
