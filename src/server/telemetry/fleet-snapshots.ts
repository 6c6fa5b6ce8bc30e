import type { FastifyBaseLogger } from 'fastify';
import { SNAPSHOT_PERIOD_MS } from '#domain/fleet-picture.ts';
import type { AccountEvents } from '../events/account-events.ts';
import { isProblem, ProblemError } from '../http/problem.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { BudgetedTelemetry } from './budgeted-telemetry.ts';
import type { ClaimedSnapshot, LatestSampleStore } from './latest-sample-store.ts';

/** Real time between looks for due devices. */
export const SNAPSHOT_TICK_MS = 5_000;
/** Devices claimed per look: 10,000 devices are ten looks, a hundred calls. */
export const SNAPSHOT_CLAIM_LIMIT = 1_000;
/** Upstream clock: a claim not finished by then is claimed again. */
export const SNAPSHOT_LEASE_MS = 2 * 60_000;
/** A failed read is looked at again after this, upstream clock. */
export const SNAPSHOT_RETRY_MS = 60_000;
const NO_CALLER_WAIT_MS = 5 * 60_000;

export interface SnapshotCounts {
  passes: number;
  calls: number;
  samples: number;
  deferred: number;
  failed: number;
}

/**
 * Reads the latest sample of every bound device every {@link SNAPSHOT_PERIOD_MS}, within each
 * device's budget (a `read` slot of each device per call, never the call its changes keep), and
 * tells the account's pages that the fleet picture changed (docs/verification.md, Fleet picture).
 * A timer rather than pg-boss: due times are on the upstream's clock, which the sandbox moves.
 */
export class FleetSnapshots {
  readonly #store: LatestSampleStore;
  readonly #model: Pick<ReadModel, 'callerOf'>;
  readonly #telemetry: Pick<BudgetedTelemetry, 'latest'>;
  readonly #events: AccountEvents | undefined;
  readonly #now: () => number;
  readonly #log: FastifyBaseLogger;
  readonly #tickMs: number;
  readonly #periodMs: number;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #started = false;
  #closed = false;
  readonly counts: SnapshotCounts = { passes: 0, calls: 0, samples: 0, deferred: 0, failed: 0 };

  /**
   * @param options.now the upstream's clock, epoch ms.
   * @param options.tickMs real ms between looks; 0: only when `runDue` is called.
   * @param options.periodMs upstream ms between two reads of a device (default
   *   {@link SNAPSHOT_PERIOD_MS}); 0: never read (`FLEET_SNAPSHOT_EVERY_S=0`).
   */
  constructor(options: {
    store: LatestSampleStore;
    model: Pick<ReadModel, 'callerOf'>;
    telemetry: Pick<BudgetedTelemetry, 'latest'>;
    events?: AccountEvents | undefined;
    now: () => number;
    log: FastifyBaseLogger;
    tickMs?: number | undefined;
    periodMs?: number | undefined;
  }) {
    this.#store = options.store;
    this.#model = options.model;
    this.#telemetry = options.telemetry;
    this.#events = options.events;
    this.#now = options.now;
    this.#log = options.log;
    this.#tickMs = options.tickMs ?? SNAPSHOT_TICK_MS;
    this.#periodMs = options.periodMs ?? SNAPSHOT_PERIOD_MS;
  }

  get store(): LatestSampleStore {
    return this.#store;
  }

  start(): void {
    if (this.#started || this.#closed || this.#periodMs <= 0) return;
    this.#started = true;
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }

  /** Resolves once every device due when called was read. For tests and the bench, which move the clock. */
  runDue(): Promise<void> {
    if (this.#closed || this.#periodMs <= 0) return Promise.resolve();
    this.#pass ??= this.#loop().finally(() => {
      this.#pass = undefined;
      this.#schedule();
    });
    return this.#pass;
  }

  #schedule(): void {
    if (!this.#started || this.#closed || this.#tickMs <= 0 || this.#pass) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.runDue(), this.#tickMs);
    this.#timer.unref();
  }

  async #loop(): Promise<void> {
    this.counts.passes += 1;
    for (;;) {
      let claimed: ClaimedSnapshot[];
      try {
        const nowMs = this.#now();
        claimed = await this.#store.claimDue(
          nowMs,
          nowMs + SNAPSHOT_LEASE_MS,
          SNAPSHOT_CLAIM_LIMIT,
        );
      } catch (error) {
        this.#log.warn({ err: error }, 'fleet snapshot: looking for devices to read failed');
        return;
      }
      for (const group of claimed) await this.#read(group);
      const devices = claimed.reduce((sum, group) => sum + group.deviceIds.length, 0);
      if (devices < SNAPSHOT_CLAIM_LIMIT || this.#closed) return;
    }
  }

  async #read(group: ClaimedSnapshot): Promise<void> {
    const { account, deviceIds } = group;
    const caller = this.#model.callerOf(account, group.secretCiphertext);
    if (!caller) {
      await this.#store.later(account, deviceIds, this.#now() + NO_CALLER_WAIT_MS);
      return;
    }
    try {
      const read = await this.#telemetry.latest(caller, deviceIds);
      this.counts.calls += read.calls;
      this.counts.samples += read.samples.size;
      this.counts.deferred += read.deferred.size;
      const nowMs = this.#now();
      await this.#store.save(account, {
        deviceIds,
        samples: read.samples,
        deferred: read.deferred,
        nowMs,
        nextReadAtMs: nowMs + this.#periodMs,
      });
      if (read.samples.size > 0)
        await this.#events
          ?.publish(account, { type: 'fleetPictureChanged', data: {} })
          .catch((error: unknown) =>
            this.#log.warn(
              { err: error },
              'fleet snapshot: the samples were kept but not announced',
            ),
          );
    } catch (error) {
      this.counts.failed += 1;
      this.#log.warn(
        {
          devices: deviceIds.length,
          ...(error instanceof ProblemError ? { code: error.problem.code } : { err: error }),
          retryInMs: SNAPSHOT_RETRY_MS,
        },
        isProblem(error, 'not_signed_in')
          ? 'fleet snapshot: the account is not signed in; its devices are read again later'
          : 'fleet snapshot: reading the latest samples failed; they are read again later',
      );
      await this.#store
        .later(account, deviceIds, this.#now() + SNAPSHOT_RETRY_MS)
        .catch((storeError: unknown) =>
          this.#log.warn({ err: storeError }, 'fleet snapshot: a failed read was not put off'),
        );
    }
  }
}
