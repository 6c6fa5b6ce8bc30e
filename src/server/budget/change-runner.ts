import {
  devicesOfStep,
  type ChangeStep,
  type QueuedChange,
  type StepAnswer,
} from '#domain/queued-change.ts';
import type { DeviceBudgetStore } from './device-budget-store.ts';
import type { ChangeOwner, QueuedChangeRow, StepEnd } from './queued-change-rows.ts';
import { StepCalls } from './step-calls.ts';
import type { QueuedChangeStore } from './queued-change-store.ts';

export interface StepToSend {
  changeId: string;
  index: number;
  step: ChangeStep;
  change: QueuedChange;
  owner: ChangeOwner;
  /** Null once the change ended. */
  secretCiphertext: string | null;
  /** From 1; a try after a crash counts. */
  attempt: number;
  /** The try's calls: the queue's reserved slots first, then new ones in the change's place. */
  calls: StepCalls;
}

export type StepResult =
  | { result: 'sent'; answer: StepAnswer }
  | { result: 'refused'; answer: StepAnswer; detail: string }
  /** 429: the devices are marked busy and the rest planned anew; never retried blind. */
  | { result: 'busy'; retryAfterMs: number; answer?: StepAnswer | undefined }
  /** Counted towards giving up; `outcomeUnknown` while a try may have reached the vendor. */
  | {
      result: 'retry';
      retryAfterMs?: number | undefined;
      notSent?: boolean | undefined;
      outcomeUnknown?: boolean | undefined;
      answer?: StepAnswer | undefined;
      detail?: string | undefined;
    }
  /** Waiting for something of the change's own making; never counted, nothing marked busy. */
  | {
      result: 'wait';
      retryAfterMs: number;
      notSent?: boolean | undefined;
      answer?: StepAnswer | undefined;
    };

/** The product's send through the command ledger; a thrown error counts as `retry`. */
export type SendStep = (step: StepToSend) => Promise<StepResult>;

export const MAX_STEP_ATTEMPTS = 6;
/** Doubles per try. */
const RETRY_FIRST_MS = 2_000;
const RETRY_MAX_MS = 60_000;

export interface ChangeRunnerLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Sends the due steps of one queued change (decision 007, section 2) on the upstream's clock.
 * One change at a time is pg-boss's job; a step found under way is sent again under its key,
 * which the ledger replays.
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
   * @param options.leaseMs how long (upstream clock) a step under way may take before the change
   *   is looked at again, as if its BFF died.
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

  /** @returns when the change is next due (upstream clock), or undefined once it ended. */
  async run(changeId: string): Promise<number | undefined> {
    for (;;) {
      const start = await this.#store.startStep(changeId, this.#upstreamNow(), this.#leaseMs);
      // A change found ended was told when it ended.
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

  #endOf(result: StepResult, failures: number, step: ChangeStep, nowMs: number): StepEnd {
    switch (result.result) {
      case 'sent':
        return { result: 'sent', answer: result.answer };
      case 'refused':
        return { result: 'refused', answer: result.answer, detail: result.detail };
      case 'busy':
        // Not a failure: the step goes once the device is free.
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

const CALL_WORDS: Record<ChangeStep['call'], string> = {
  submit: 'submission',
  cancel: 'cancellation',
  batch: 'batch submission',
  batchCancel: 'batch cancellation',
};
