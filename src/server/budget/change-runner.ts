import {
  devicesOfStep,
  type ChangeStep,
  type QueuedChange,
  type StepAnswer,
} from '../../domain/queued-change.ts';
import type { DeviceBudgetStore } from './device-budget-store.ts';
import type { ChangeOwner, QueuedChangeRow } from './queued-change-rows.ts';
import { StepCalls } from './step-calls.ts';
import type { QueuedChangeStore, StepEnd } from './queued-change-store.ts';

/** One step handed to {@link SendStep}: the call, its key, and whose change it is. */
export interface StepToSend {
  changeId: string;
  /** The step's position in its change, from 0. */
  index: number;
  /** The call, with the `Idempotency-Key` the ledger must record it under. */
  step: ChangeStep;
  /** The whole change (an undo's `undoOf` is there). */
  change: QueuedChange;
  owner: ChangeOwner;
  /** The client secret the change acts under, sealed by the product; null once it ended. */
  secretCiphertext: string | null;
  /** Which try this is, from 1 (a try after a crash counts). */
  attempt: number;
  /**
   * The try's upstream calls: the slots the queue reserved for the step, then new ones in the
   * change's place. Every call of the try takes its slots here (the read that settles an earlier
   * try's unknown outcome first of all), and gives back the reserved ones it did not spend.
   */
  calls: StepCalls;
}

/** How a step's call came out, as the product's `send` tells it. */
export type StepResult =
  /** The upstream accepted it (2xx): the step is done. */
  | { result: 'sent'; answer: StepAnswer }
  /** The upstream refused it for good (a 4xx other than 429): the change fails, later steps stay unsent. */
  | { result: 'refused'; answer: StepAnswer; detail: string }
  /**
   * 429: another client of the account spent the devices' budget. They are marked busy for
   * `retryAfterMs` (the `Retry-After`) and the rest of the change is planned anew; never retried blind.
   */
  | { result: 'busy'; retryAfterMs: number; answer?: StepAnswer | undefined }
  /**
   * Not done, to be tried again under the same key (a 5xx, a timeout, an open circuit, the
   * device's history unreadable): after `retryAfterMs`, else a back-off; counted towards giving
   * up. `notSent` when the call certainly never reached the upstream; `outcomeUnknown` while a
   * try may have reached it and whether the vendor carried it out is not known.
   */
  | {
      result: 'retry';
      retryAfterMs?: number | undefined;
      notSent?: boolean | undefined;
      outcomeUnknown?: boolean | undefined;
      answer?: StepAnswer | undefined;
      detail?: string | undefined;
    }
  /**
   * Not done, waiting for something of the change's own making: an earlier try of it still under
   * way or being settled, or its devices' next free call in the change's place (the read that
   * settles an unknown outcome, or the call sent again after it). Tried again after
   * `retryAfterMs`; never counted towards giving up, and the upstream is not marked busy.
   */
  | {
      result: 'wait';
      retryAfterMs: number;
      notSent?: boolean | undefined;
      answer?: StepAnswer | undefined;
    };

/**
 * Sends one step through the command ledger (the product's function: it opens the sealed secret,
 * builds the ledger intent under `step.idempotencyKey` and maps the ledger's answer). A thrown
 * error counts as `retry`.
 */
export type SendStep = (step: StepToSend) => Promise<StepResult>;

/**
 * Failed tries of one step before its change fails: `not_sent`, or `outcome_unknown` when a try
 * may have reached the upstream and its outcome could not be settled.
 */
export const MAX_STEP_ATTEMPTS = 6;
/** First wait before a step is tried again after a failure, ms; doubles per try. */
const RETRY_FIRST_MS = 2_000;
/** Longest wait between two tries of a step, ms. */
const RETRY_MAX_MS = 60_000;

/** Where the runner writes what went wrong (pino's logger fits). */
export interface ChangeRunnerLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Sends the due steps of one queued change (decision 007, section 2), on the upstream's clock:
 * each step takes its devices' slots and is marked under way in one transaction, is sent through
 * `send`, and its outcome recorded; the next step follows at once when it is due. It never runs
 * one change twice at a time by itself: the queue (pg-boss, one active job per change) does
 * that; a step found under way was interrupted and is sent again under its key, which the ledger
 * replays.
 */
export class ChangeRunner {
  readonly #store: QueuedChangeStore;
  readonly #budget: DeviceBudgetStore;
  readonly #send: SendStep;
  readonly #upstreamNow: () => number;
  readonly #leaseMs: number;
  readonly #log: ChangeRunnerLog;
  readonly #onChange: ((row: QueuedChangeRow) => void) | undefined;

  /**
   * @param options.upstreamNow the upstream's clock, epoch ms.
   * @param options.leaseMs how long (upstream clock) a step under way may take before the change
   *   is looked at again, as if its BFF died.
   * @param options.onChange told each change of a change's row this runner wrote (once per write;
   *   never for a row it only read).
   */
  constructor(options: {
    store: QueuedChangeStore;
    budget: DeviceBudgetStore;
    send: SendStep;
    upstreamNow: () => number;
    leaseMs: number;
    log: ChangeRunnerLog;
    onChange?: ((row: QueuedChangeRow) => void) | undefined;
  }) {
    this.#store = options.store;
    this.#budget = options.budget;
    this.#send = options.send;
    this.#upstreamNow = options.upstreamNow;
    this.#leaseMs = options.leaseMs;
    this.#log = options.log;
    this.#onChange = options.onChange;
  }

  /**
   * Sends every step of `changeId` that is due, one after another.
   *
   * @returns when the change is next due (upstream clock), or undefined once it ended.
   */
  async run(changeId: string): Promise<number | undefined> {
    for (;;) {
      const start = await this.#store.startStep(changeId, this.#upstreamNow(), this.#leaseMs);
      // Told what this runner wrote only: a change found ended was told when it ended.
      if (start.row && (start.kind !== 'ended' || start.written)) this.#onChange?.(start.row);
      if (start.kind === 'ended') return undefined;
      if (start.kind === 'not_due') return start.atMs;
      const progress = start.row.steps[start.index];
      const result = await this.#sendOnce({
        changeId,
        index: start.index,
        step: start.step,
        change: start.row.change,
        owner: start.row.owner,
        secretCiphertext: start.row.secretCiphertext,
        attempt: progress?.attempts ?? 1,
        calls: new StepCalls({
          budget: this.#budget,
          region: start.row.owner.region,
          change: { id: start.row.id, seq: start.row.seq },
          deviceIds: [...new Set(devicesOfStep(start.step))],
          slotIds: start.slotIds,
        }),
      });
      const answeredAtMs = this.#upstreamNow();
      await this.#budget.settle(start.slotIds, answeredAtMs);
      const { row, written } = await this.#store.finishStep(
        changeId,
        start.index,
        this.#endOf(result, (progress?.failures ?? 0) + 1, start.step, answeredAtMs),
        answeredAtMs,
      );
      if (row && written) this.#onChange?.(row);
    }
  }

  async #sendOnce(step: StepToSend): Promise<StepResult> {
    try {
      return await this.#send(step);
    } catch (error) {
      this.#log.warn(
        {
          changeId: step.changeId,
          step: step.index,
          reason: error instanceof Error ? error.message : String(error),
        },
        'queued change step failed; it will be tried again',
      );
      return { result: 'retry' };
    }
  }

  /** How the store records `result`; `failures` counts this try if it failed. */
  #endOf(result: StepResult, failures: number, step: ChangeStep, nowMs: number): StepEnd {
    switch (result.result) {
      case 'sent':
        return { result: 'sent', answer: result.answer };
      case 'refused':
        return { result: 'refused', answer: result.answer, detail: result.detail };
      case 'busy':
        // The upstream did nothing: not a failure of the step, which goes once the device is free.
        return {
          result: 'again',
          notBeforeMs: nowMs + result.retryAfterMs,
          busyUntilMs: nowMs + result.retryAfterMs,
          notSent: true,
          failed: false,
          answer: result.answer,
        };
      case 'wait':
        return {
          result: 'again',
          notBeforeMs: nowMs + result.retryAfterMs,
          notSent: result.notSent ?? false,
          failed: false,
          answer: result.answer,
        };
      case 'retry': {
        if (failures >= MAX_STEP_ATTEMPTS && result.outcomeUnknown)
          return {
            result: 'given_up',
            outcomeUnknown: true,
            answer: result.answer,
            detail: `The vendor may have carried out its ${CALL_WORDS[step.call]}: an answer was lost, and after ${failures} tries the device's commands could not be read to tell. It was not sent again; the device's commands show it once they are read, if it was carried out.`,
          };
        if (failures >= MAX_STEP_ATTEMPTS)
          return {
            result: 'given_up',
            answer: result.answer,
            detail:
              result.detail ??
              `Its ${CALL_WORDS[step.call]} did not go through after ${failures} tries, so the change stopped there.`,
          };
        const backoffMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (failures - 1));
        return {
          result: 'again',
          notBeforeMs: nowMs + Math.max(result.retryAfterMs ?? 0, backoffMs),
          notSent: (result.notSent ?? false) && !result.outcomeUnknown,
          failed: true,
          answer: result.answer,
        };
      }
    }
  }
}

/** A step's call in words. */
const CALL_WORDS: Record<ChangeStep['call'], string> = {
  submit: 'submission',
  cancel: 'cancellation',
  batch: 'batch submission',
  batchCancel: 'batch cancellation',
};
