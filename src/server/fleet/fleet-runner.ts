import { BatchCancelResponseSchema, BatchSubmissionResponseSchema } from '../../domain/batch.ts';
import { ProblemSchema } from '../../domain/errors.ts';
import { isFinalStatus } from '../../domain/command.ts';
import {
  breaksAbortRule,
  deviceOutcomeOfRecord,
  type FleetDeviceOutcome,
} from '../../domain/fleet-job.ts';
import { ProblemError } from '../http/problem.ts';
import type { StoredAnswer } from '../ledger/ledger-answers.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { Session } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { FleetBatchRow, FleetJobRow, FleetStore } from './fleet-store.ts';

/**
 * How often a batch is tried before its devices are reported failed: enough to outlast a burst
 * of 429s and an unknown outcome that the ledger settles through the history.
 */
export const MAX_BATCH_ATTEMPTS = 8;
/**
 * How often a batch is tried while an earlier try of it may have reached its devices and is not
 * settled yet ({@link SETTLING_CODES}): each such try only reads the command history and sends
 * nothing, and giving up early would report devices failed that may hold the command. At the
 * ledger's 5 s `Retry-After`, or the 30 s backoff cap, a few minutes to a quarter of an hour.
 */
export const MAX_SETTLING_ATTEMPTS = 30;
/** The longest wait between two tries of one batch, ms, unless the runner is given another. */
const MAX_RETRY_WAIT_MS = 30_000;
/** Status reads in flight at once while checking a sent batch for the abort rule. */
const STATUS_READS_AT_ONCE = 8;

/** The `Idempotency-Key` of one batch of a job: the same for every try, in every instance. */
export function batchKey(jobId: string, index: number): string {
  return `fleet-job:${jobId}:batch:${index}`;
}

/** The `Idempotency-Key` of the cancel of one sent batch of a job. */
export function batchCancelKey(jobId: string, index: number): string {
  return `fleet-job:${jobId}:cancel:${index}`;
}

/** What a step asks of the queue next: another step at `atMs`, or none. */
export type NextStep = { atMs: number } | undefined;

/** Test-only hooks: `beforeBatch` runs before a batch goes to the ledger (the crash test). */
export interface FleetRunnerHooks {
  beforeBatch?: (jobId: string, index: number) => void;
  afterBatch?: (jobId: string, index: number) => void;
}

/**
 * One step of a fleet job (docs/fleet-dispatch.md, Job model): sends the next pending batch
 * through the ledger, or cancels what was sent, and says when the next step is due. A step may run
 * again after a crash, on any instance: every batch goes through the ledger under its own
 * `Idempotency-Key` ({@link batchKey}), so a batch tried again is replayed or reconciled through
 * the history, never sent twice.
 */
export class FleetRunner {
  readonly #store: FleetStore;
  readonly #ledger: Ledger;
  readonly #upstream: UpstreamApi;
  readonly #box: SecretBox;
  readonly #now: () => number;
  readonly #forgetCaller: (callerId: string) => void;
  readonly #hooks: FleetRunnerHooks;
  readonly #retryWaitCapMs: number;

  constructor(options: {
    store: FleetStore;
    ledger: Ledger;
    upstream: UpstreamApi;
    box: SecretBox;
    now: () => number;
    /** Drops what the token cache holds for a job's caller once the job ends. */
    forgetCaller: (callerId: string) => void;
    hooks?: FleetRunnerHooks | undefined;
    /** The longest wait between two tries of one batch, ms (default 30 s; tests shorten it). */
    retryWaitCapMs?: number | undefined;
  }) {
    this.#store = options.store;
    this.#ledger = options.ledger;
    this.#upstream = options.upstream;
    this.#box = options.box;
    this.#now = options.now;
    this.#forgetCaller = options.forgetCaller;
    this.#hooks = options.hooks ?? {};
    this.#retryWaitCapMs = options.retryWaitCapMs ?? MAX_RETRY_WAIT_MS;
  }

  /** Runs one step of job `jobId`; see the class. */
  async step(jobId: string): Promise<NextStep> {
    const job = await this.#store.find(jobId);
    if (!job) return undefined;
    if (job.state !== 'running' && job.state !== 'cancelling') return undefined;
    const caller = this.#callerOf(job);
    if (!caller) {
      await this.#end(
        job,
        'failed',
        'The sign-in this job ran under can no longer be used, so nothing more was sent. Sign in and start a new job for the devices not reached.',
      );
      return undefined;
    }
    if (job.state === 'cancelling') {
      await this.#cancelSent(job, caller, await this.#store.batches(jobId));
      return undefined;
    }
    const { batch: next, lastSentMs } = await this.#store.nextToSend(jobId);
    if (!next) {
      await this.#end(job, 'completed');
      return undefined;
    }
    // The rate holds whatever woke this step (a resume, a step run again after a crash).
    const intervalMs = 60_000 / job.rollout.batchesPerMinute;
    if (next.attempts === 0 && lastSentMs + intervalMs > this.#now())
      return { atMs: lastSentMs + intervalMs };
    const retryAtMs = await this.#send(job, caller, next);
    if (retryAtMs !== undefined) return { atMs: retryAtMs };
    const stop =
      job.rollout.abortPercent < 100
        ? abortReason(job, await this.#store.batches(jobId))
        : undefined;
    if (stop) {
      await this.#end(job, 'aborted', stop, ['running']);
      return undefined;
    }
    return { atMs: this.#now() + intervalMs };
  }

  /**
   * Sends one batch through the ledger and writes what came of it.
   *
   * @returns when to try the same batch again, or undefined when it is settled (sent or failed).
   */
  async #send(
    job: FleetJobRow,
    caller: Session,
    batch: FleetBatchRow,
  ): Promise<number | undefined> {
    // Written with the outcome, not before the call: one write less per batch (bench: fleet). A
    // try cut short by a crash is not counted; the batch key keeps its next try from sending twice.
    const attempts = batch.attempts + 1;
    const later = async (atMs: number) => {
      await this.#store.updateBatch({ jobId: job.id, index: batch.index, attempts });
      return atMs;
    };
    const request = {
      devices: batch.devices.map((d) => d.deviceId),
      command: batch.command ?? job.command,
    };
    this.#hooks.beforeBatch?.(job.id, batch.index);
    let answer: StoredAnswer;
    try {
      ({ answer } = await this.#ledger.run({
        kind: 'batch',
        session: caller,
        batch: request,
        idempotencyKey: batchKey(job.id, batch.index),
        send: () => this.#upstream.batch(caller, request),
      }));
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      // Refusals that name a wait (the key or window still settling): the same batch later.
      const waitS = Number(error.headers['retry-after']);
      const settling = SETTLING_CODES.has(error.problem.code);
      if (Number.isFinite(waitS) && attempts < maxAttempts(settling))
        return later(this.#now() + Math.min(this.#retryWaitCapMs, waitS * 1000));
      await this.#failBatch(
        batch,
        attempts,
        settling ? OUTCOME_NOT_KNOWN : failureWords(error.problem.detail),
      );
      return undefined;
    }
    this.#hooks.afterBatch?.(job.id, batch.index);
    if (answer.status === 202) {
      const accepted = BatchSubmissionResponseSchema.safeParse(answer.body);
      if (!accepted.success) {
        await this.#failBatch(batch, attempts, UNREADABLE);
        return undefined;
      }
      const ids = new Map(accepted.data.commands.map((c) => [c.deviceId, c.id]));
      const devices: FleetDeviceOutcome[] = batch.devices.map((device) => {
        const commandId = ids.get(device.deviceId);
        return commandId
          ? { deviceId: device.deviceId, commandId, status: 'received' }
          : {
              deviceId: device.deviceId,
              failure: 'The upstream accepted the batch without a command for this device.',
              outcomeAt: new Date(this.#now()).toISOString(),
            };
      });
      await this.#store.updateBatch({
        jobId: job.id,
        index: batch.index,
        state: 'sent',
        attempts,
        batchCommandId: accepted.data.batchCommandId,
        devices:
          job.rollout.abortPercent < 100 ? await this.#readStatuses(caller, devices) : devices,
        sentAt: new Date(this.#now()),
      });
      return undefined;
    }
    const problem = ProblemSchema.safeParse(answer.body);
    const settling = problem.success && SETTLING_CODES.has(problem.data.code);
    // 429 and answers whose outcome is not known yet: the same key again later.
    if ((answer.status === 429 || answer.status >= 500) && attempts < maxAttempts(settling)) {
      const waitS = Number(answer.headers?.['retry-after']);
      const backoffMs = Math.min(this.#retryWaitCapMs, 1000 * 2 ** (attempts - 1));
      return later(
        this.#now() +
          (Number.isFinite(waitS) ? Math.min(this.#retryWaitCapMs, waitS * 1000) : backoffMs),
      );
    }
    await this.#failBatch(
      batch,
      attempts,
      settling
        ? OUTCOME_NOT_KNOWN
        : failureWords(problem.success ? problem.data.detail : undefined),
    );
    return undefined;
  }

  /**
   * The status of each sent command, read once right after the batch, so the abort rule sees the
   * commands the upstream cancelled at once (an overlapping window). A read that fails leaves
   * the device as it was.
   */
  async #readStatuses(
    caller: Session,
    devices: FleetDeviceOutcome[],
  ): Promise<FleetDeviceOutcome[]> {
    const read: FleetDeviceOutcome[] = [];
    for (let i = 0; i < devices.length; i += STATUS_READS_AT_ONCE)
      read.push(
        ...(await Promise.all(
          devices.slice(i, i + STATUS_READS_AT_ONCE).map(async (device) => {
            if (!device.commandId) return device;
            try {
              const record = await this.#upstream.statusRecord(caller, {
                deviceId: device.deviceId,
                commandId: device.commandId,
              });
              return { ...device, ...deviceOutcomeOfRecord(record, this.#now()) };
            } catch {
              return device;
            }
          }),
        )),
      );
    return read;
  }

  async #failBatch(batch: FleetBatchRow, attempts: number, words: string): Promise<void> {
    await this.#store.updateBatch({
      jobId: batch.jobId,
      index: batch.index,
      state: 'failed',
      attempts,
      devices: batch.devices.map((device) => ({
        deviceId: device.deviceId,
        failure: words,
        outcomeAt: new Date(this.#now()).toISOString(),
      })),
    });
  }

  /** Cancels every sent batch (batch cancel, spec 4), records the results, ends the job. */
  async #cancelSent(job: FleetJobRow, caller: Session, batches: FleetBatchRow[]): Promise<void> {
    for (const batch of batches) {
      if (batch.state !== 'sent' || !batch.batchCommandId) continue;
      const batchCommandId = batch.batchCommandId;
      const { answer } = await this.#ledger.run({
        kind: 'batchCancel',
        session: caller,
        batchCommandId,
        idempotencyKey: batchCancelKey(job.id, batch.index),
        send: () => this.#upstream.batchCancel(caller, batchCommandId),
      });
      const results = BatchCancelResponseSchema.safeParse(answer.body);
      if (answer.status !== 200 || !results.success)
        throw new Error(`batch cancel of ${batchCommandId} answered ${answer.status}`);
      const byDevice = new Map(results.data.results.map((r) => [r.deviceId, r]));
      await this.#store.updateBatch({
        jobId: job.id,
        index: batch.index,
        devices: batch.devices.map((device) => {
          const result = byDevice.get(device.deviceId);
          if (!result) return device;
          return {
            ...device,
            status: result.status,
            ...(result.success ? { cancelReason: 'manuallyCancel' as const } : {}),
            ...(isFinalStatus(result.status) && !device.outcomeAt
              ? { outcomeAt: new Date(this.#now()).toISOString() }
              : {}),
          };
        }),
      });
    }
    await this.#end(job, 'cancelled', undefined, ['cancelling']);
  }

  async #end(
    job: FleetJobRow,
    state: 'completed' | 'cancelled' | 'aborted' | 'failed',
    stopReason?: string,
    from: FleetJobRow['state'][] = ['running', 'cancelling'],
  ): Promise<void> {
    await this.#store.transition(job.id, from, state, this.#now(), stopReason);
    this.#forgetCaller(callerIdOf(job.id));
  }

  /** The sign-in the job acts under, from its sealed secret; undefined once it cannot be opened. */
  #callerOf(job: FleetJobRow): Session | undefined {
    if (!job.secretCiphertext) return undefined;
    let clientSecret: string;
    try {
      clientSecret = this.#box.open(job.secretCiphertext, sealingContext(job.id));
    } catch {
      return undefined;
    }
    const nowMs = this.#now();
    return {
      id: callerIdOf(job.id),
      region: job.region,
      clientId: job.clientId,
      clientSecret,
      ...(job.operatorName ? { operatorName: job.operatorName } : {}),
      // Each batch is recorded in the ledger as the person's who made the job.
      ...(job.operator ? { operator: job.operator } : {}),
      createdAtMs: job.createdAt.getTime(),
      lastSeenAtMs: nowMs,
    };
  }
}

/** The associated data a job's secret is sealed with: only that job's row opens it. */
export function sealingContext(jobId: string): string {
  return `fleet-job:${jobId}`;
}

/** The token cache key of a job's caller: apart from every session's. */
function callerIdOf(jobId: string): string {
  return `fleet-job:${jobId}`;
}

/**
 * The ledger's codes for a batch that an earlier try may have carried out and that is not settled
 * yet (docs/architecture.md, Ledger): `outcome_unknown` (the answer was lost, a timeout, a 5xx),
 * `reconciliation_pending` (the command history could not be read to settle it),
 * `window_unsettled` and `idempotency_in_progress` (another try holds the lease).
 */
const SETTLING_CODES: ReadonlySet<string> = new Set([
  'outcome_unknown',
  'reconciliation_pending',
  'window_unsettled',
  'idempotency_in_progress',
]);

const maxAttempts = (settling: boolean) => (settling ? MAX_SETTLING_ATTEMPTS : MAX_BATCH_ATTEMPTS);

const OUTCOME_NOT_KNOWN =
  "Whether this batch reached the device is not known: an earlier try may have been carried out, and the command history could not be read to confirm it. Check the device's command history before sending to it again.";

const UNREADABLE =
  "The upstream accepted the batch with an answer that could not be read; check the devices' command history.";

function failureWords(detail: string | undefined): string {
  return detail ?? 'The upstream refused this batch.';
}

/** Operator words for a broken abort rule, or undefined while it holds. */
function abortReason(job: FleetJobRow, batches: readonly FleetBatchRow[]): string | undefined {
  let sentSoFar = 0;
  let failedOrCancelled = 0;
  for (const batch of batches) {
    if (batch.state !== 'sent' && batch.state !== 'failed') continue;
    for (const device of batch.devices) {
      sentSoFar += 1;
      if (device.failure || device.status === 'cancelled') failedOrCancelled += 1;
    }
  }
  if (!breaksAbortRule({ sentSoFar, failedOrCancelled }, job.rollout.abortPercent))
    return undefined;
  return `Stopped: ${failedOrCancelled} of the ${sentSoFar} devices tried so far failed or were cancelled, more than the ${job.rollout.abortPercent}% this job allows. Nothing more was sent.`;
}
