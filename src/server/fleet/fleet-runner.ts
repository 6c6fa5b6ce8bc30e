import { BatchCancelResponseSchema, BatchSubmissionResponseSchema } from '#domain/batch.ts';
import { ProblemSchema } from '#domain/errors.ts';
import { isFinalStatus } from '#domain/command.ts';
import { abortRuleCounts, breaksAbortRule, type FleetDeviceOutcome } from '#domain/fleet-job.ts';
import { ProblemError } from '../http/problem.ts';
import type { StoredAnswer } from '../ledger/ledger-answers.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { ChangeSteps } from '../changes/change-steps.ts';
import type { SecretBox } from '../session/secret-box.ts';
import { actingFor } from '../session/acting-for.ts';
import type { Session } from '../session/session-store.ts';
import { devicesOfBatch } from './fleet-batch-devices.ts';
import type { FleetBatchRow, FleetJobRow, FleetStore } from './fleet-store.ts';

export { COMMAND_NOT_FOUND, devicesOfBatch } from './fleet-batch-devices.ts';

/** Enough to outlast a burst of 429s and an unknown outcome the ledger settles. */
export const MAX_BATCH_ATTEMPTS = 8;
/** While an earlier try may have reached its devices: giving up early would report them failed wrongly. */
export const MAX_SETTLING_ATTEMPTS = 30;
const MAX_RETRY_WAIT_MS = 30_000;

/** The same for every try, in every instance. */
export function batchKey(jobId: string, index: number): string {
  return `fleet-job:${jobId}:batch:${index}`;
}

export function batchCancelKey(jobId: string, index: number): string {
  return `fleet-job:${jobId}:cancel:${index}`;
}

export type NextStep = { atMs: number } | undefined;

/** Test-only (the crash test). */
export interface FleetRunnerHooks {
  beforeBatch?: (jobId: string, index: number) => void;
  afterBatch?: (jobId: string, index: number) => void;
}

/**
 * One step of a fleet job (docs/fleet-dispatch.md, Job model). A step may run again after a crash:
 * every batch goes under its own `Idempotency-Key` ({@link batchKey}), so it is never sent twice.
 */
export class FleetRunner {
  readonly #store: FleetStore;
  readonly #ledger: Ledger;
  readonly #steps: ChangeSteps;
  readonly #box: SecretBox;
  readonly #now: () => number;
  readonly #forgetCaller: (callerId: string) => void;
  readonly #hooks: FleetRunnerHooks;
  readonly #retryWaitCapMs: number;

  constructor(options: {
    store: FleetStore;
    ledger: Ledger;
    /** How each batch and cancel is sent: through the ledger, a slot of each device taken. */
    steps: ChangeSteps;
    box: SecretBox;
    now: () => number;
    forgetCaller: (callerId: string) => void;
    hooks?: FleetRunnerHooks | undefined;
    /** Default 30 s; tests shorten it. */
    retryWaitCapMs?: number | undefined;
  }) {
    this.#store = options.store;
    this.#ledger = options.ledger;
    this.#box = options.box;
    this.#now = options.now;
    this.#forgetCaller = options.forgetCaller;
    this.#hooks = options.hooks ?? {};
    this.#retryWaitCapMs = options.retryWaitCapMs ?? MAX_RETRY_WAIT_MS;
    this.#steps = options.steps;
  }

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
      const retryAtMs = await this.#cancelSent(job, caller, await this.#store.batches(jobId));
      return retryAtMs === undefined ? undefined : { atMs: retryAtMs };
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
    // The read model learns cancellations after their answers (docs/fleet-dispatch.md, Abort rule).
    if (await this.#abortIfBroken(job)) return undefined;
    const retryAtMs = await this.#send(job, caller, next);
    if (retryAtMs !== undefined) return { atMs: retryAtMs };
    if (await this.#abortIfBroken(job)) return undefined;
    return { atMs: this.#now() + intervalMs };
  }

  async #abortIfBroken(job: FleetJobRow): Promise<boolean> {
    if (job.rollout.abortPercent >= 100) return false;
    const stop = abortReason(job, await this.#store.batches(job.id));
    if (!stop) return false;
    await this.#end(job, 'aborted', stop, ['running']);
    return true;
  }

  /** @returns when to try the same batch again, or undefined when it is settled. */
  async #send(
    job: FleetJobRow,
    caller: Session,
    batch: FleetBatchRow,
  ): Promise<number | undefined> {
    // Written with the outcome: one write less per batch (bench: fleet); the key prevents resending.
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
      const idempotencyKey = batchKey(job.id, batch.index);
      ({ answer } = await this.#steps.send(
        caller,
        { call: 'batch', batch: request, idempotencyKey },
        { idempotencyKey },
      ));
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      // Refusals that name a wait: the same batch later.
      const waitS = Number(error.headers['retry-after']);
      const settling = SETTLING_CODES.has(error.problem.code);
      if (Number.isFinite(waitS) && attempts < maxAttempts(settling || busy(error.problem.code)))
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
      // The vendor's answer names no device command: the read model finds them (fleet-outcomes.ts).
      const batchAnswer =
        (await this.#ledger
          .batchAnswerByKey(caller, batchKey(job.id, batch.index))
          .catch(() => undefined)) ?? accepted.data;
      await this.#store.updateBatch({
        jobId: job.id,
        index: batch.index,
        state: 'sent',
        attempts,
        ...(batchAnswer.batchCommandId ? { batchCommandId: batchAnswer.batchCommandId } : {}),
        devices: devicesOfBatch(batch.devices, batchAnswer, undefined, this.#now()),
        sentAt: new Date(this.#now()),
      });
      return undefined;
    }
    const problem = ProblemSchema.safeParse(answer.body);
    const settling = problem.success && SETTLING_CODES.has(problem.data.code);
    const patient = settling || (problem.success && busy(problem.data.code));
    if ((answer.status === 429 || answer.status >= 500) && attempts < maxAttempts(patient)) {
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

  /**
   * A cancel whose devices have no call left waits: the job stays cancelling.
   *
   * @returns when to try again (cancels done replay under their keys), or undefined once ended.
   */
  async #cancelSent(
    job: FleetJobRow,
    caller: Session,
    batches: FleetBatchRow[],
  ): Promise<number | undefined> {
    let retryAtMs: number | undefined;
    const waitFor = (answer: StoredAnswer) => {
      const waitS = Number(answer.headers?.['retry-after']);
      const atMs = this.#now() + Math.min(this.#retryWaitCapMs, (waitS || 1) * 1000);
      retryAtMs = Math.max(retryAtMs ?? 0, atMs);
    };
    for (const batch of batches) {
      if (batch.state !== 'sent') continue;
      if (!batch.batchCommandId) {
        await this.#cancelEach(job, caller, batch, waitFor);
        continue;
      }
      const batchCommandId = batch.batchCommandId;
      const idempotencyKey = batchCancelKey(job.id, batch.index);
      const step = {
        call: 'batchCancel' as const,
        batchCommandId,
        deviceIds: batch.devices.map((d) => d.deviceId),
        idempotencyKey,
      };
      const { answer } = await this.#steps.send(caller, step, { idempotencyKey });
      if (answer.status === 429) {
        waitFor(answer);
        continue;
      }
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
          const status = result.status ?? device.status;
          return {
            ...device,
            ...(result.commandId && !device.commandId ? { commandId: result.commandId } : {}),
            ...(status ? { status } : {}),
            ...(result.success ? { cancelReason: 'manuallyCancel' as const } : {}),
            ...(status && isFinalStatus(status) && !device.outcomeAt
              ? { outcomeAt: new Date(this.#now()).toISOString() }
              : {}),
          };
        }),
      });
    }
    if (retryAtMs !== undefined) return retryAtMs;
    await this.#end(job, 'cancelled', undefined, ['cancelling']);
    return undefined;
  }

  /** For a batch without a batch ID (found after its answer was lost): device by device. */
  async #cancelEach(
    job: FleetJobRow,
    caller: Session,
    batch: FleetBatchRow,
    waitFor: (answer: StoredAnswer) => void,
  ): Promise<void> {
    const devices: FleetDeviceOutcome[] = [];
    for (const device of batch.devices) {
      if (!device.commandId || (device.status && isFinalStatus(device.status))) {
        devices.push(device);
        continue;
      }
      const idempotencyKey = `${batchCancelKey(job.id, batch.index)}:${device.deviceId}`;
      const step = {
        call: 'cancel' as const,
        deviceId: device.deviceId,
        commandId: device.commandId,
        idempotencyKey,
      };
      const { answer } = await this.#steps.send(caller, step, { idempotencyKey });
      if (answer.status === 429) waitFor(answer);
      devices.push(
        answer.status === 200
          ? {
              ...device,
              status: 'cancelled',
              cancelReason: 'manuallyCancel',
              outcomeAt: new Date(this.#now()).toISOString(),
            }
          : device,
      );
    }
    await this.#store.updateBatch({ jobId: job.id, index: batch.index, devices });
  }

  async #end(
    job: FleetJobRow,
    state: 'completed' | 'cancelled' | 'aborted' | 'failed',
    stopReason?: string,
    from: FleetJobRow['state'][] = ['running', 'cancelling'],
  ): Promise<void> {
    await this.#store.transition(job.id, from, state, this.#now(), stopReason);
    this.#forgetCaller(sealingContext(job.id));
  }

  /** As the person who made it; undefined once it cannot be opened. */
  #callerOf(job: FleetJobRow): Session | undefined {
    return actingFor({
      box: this.#box,
      key: sealingContext(job.id),
      sealedSecret: job.secretCiphertext,
      actor: job,
      nowMs: this.#now(),
    });
  }
}

/** Also its caller's token cache key ({@link actingFor}). */
export function sealingContext(jobId: string): string {
  return `fleet-job:${jobId}`;
}

/** An earlier try may have carried the batch out (docs/architecture.md, Ledger). */
const SETTLING_CODES: ReadonlySet<string> = new Set([
  'outcome_unknown',
  'reconciliation_pending',
  'window_unsettled',
  'idempotency_in_progress',
]);

const maxAttempts = (patient: boolean) => (patient ? MAX_SETTLING_ATTEMPTS : MAX_BATCH_ATTEMPTS);

/** Nothing was sent: the batch waits for the next slot rather than fail merely busy devices. */
const busy = (code: string) => code === 'device_rate_limited';

const OUTCOME_NOT_KNOWN =
  "Whether this batch reached the device is not known: an earlier try may have been carried out, and the command history could not be read to confirm it. Check the device's command history before sending to it again.";

const UNREADABLE =
  "The upstream accepted the batch with an answer that could not be read; check the devices' command history.";

function failureWords(detail: string | undefined): string {
  return detail ?? 'The upstream refused this batch.';
}

function abortReason(job: FleetJobRow, batches: readonly FleetBatchRow[]): string | undefined {
  const { sentSoFar, failedOrCancelled } = abortRuleCounts(batches);
  if (!breaksAbortRule({ sentSoFar, failedOrCancelled }, job.rollout.abortPercent))
    return undefined;
  return `Stopped: ${failedOrCancelled} of the ${sentSoFar} devices tried so far failed or were cancelled, more than the ${job.rollout.abortPercent}% this job allows. Nothing more was sent.`;
}
