import { ProblemSchema } from '#domain/errors.ts';
import type { StepAnswer } from '#domain/queued-change.ts';
import type { SendStep, StepResult, StepToSend } from '../budget/change-runner.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import type { StepCalls } from '../budget/step-calls.ts';
import { ProblemError } from '../http/problem.ts';
import { budgetedHistory } from '../ledger/budgeted-history.ts';
import type { StoredAnswer } from '../ledger/ledger-answers.ts';
import type { SecretBox } from '../session/secret-box.ts';
import { actingFor } from '../session/acting-for.ts';
import type { Session } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { ChangeSteps } from './change-steps.ts';

const BUSY_DEFAULT_MS = 60_000;

/**
 * The sealing context of a queued change's client secret, so only that change's row opens it;
 * also its caller's token cache key, apart from every session's and fleet job's (`actingFor`).
 */
export function changeSealingContext(changeId: string): string {
  return `queued-change:${changeId}`;
}

/**
 * The queue's `send` ({@link SendStep}): one step through the ledger under its key, as the person
 * who made the change. The queue's reserved slots go to the first call about each device, so the
 * read that settles an unknown outcome goes in the change's place (decision 007, section 2).
 */
export function queuedStepSender(options: {
  /** How the step is sent (the one {@link ChangeSteps} of the BFF). */
  steps: ChangeSteps;
  /** For the read that settles an unknown outcome. */
  upstream: UpstreamApi;
  box: SecretBox;
  now: () => number;
  budget: DeviceBudgetStore;
  /** Epoch ms. */
  upstreamNow: () => number;
}): SendStep {
  const { steps, upstream, box, now, budget, upstreamNow } = options;
  return async (toSend: StepToSend): Promise<StepResult> => {
    const { step, change, calls } = toSend;
    try {
      const caller = callerOf(toSend, box, now());
      if (!caller) {
        const problem = new ProblemError(
          401,
          'not_signed_in',
          'The sign-in this change was made under can no longer be used, so it was not sent. Sign in and make the change again.',
        );
        return { result: 'refused', answer: answerOf(problem), detail: problem.message };
      }
      const { answer } = await steps.send(caller, step, {
        idempotencyKey: step.idempotencyKey,
        undoOf: change.kind === 'undo' ? change.undoOf : undefined,
        slots: { take: calls.take },
        history: budgetedHistory({ budget, upstream, upstreamNow, take: calls.take }),
      });
      return resultOf(answer, now(), calls, upstreamNow());
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      return problemResultOf(error);
    } finally {
      await calls.releaseUnspent();
    }
  };
}

function problemResultOf(error: ProblemError): StepResult {
  const waitS = Number(error.headers['retry-after']);
  const retryAfterMs = Number.isFinite(waitS) ? Math.max(1, waitS) * 1000 : undefined;
  const answer = answerOf(error);
  switch (error.problem.code) {
    // Still under way, or being settled within the lease: the change's own doing.
    case 'idempotency_in_progress':
      return { result: 'wait', retryAfterMs: retryAfterMs ?? 1000, answer };
    case 'reconciliation_pending':
      // 429: the settling read waits for the next free call in the change's place; 503: counted failure.
      return error.problem.status === 429
        ? { result: 'wait', retryAfterMs: retryAfterMs ?? 1000, answer }
        : { result: 'retry', retryAfterMs, outcomeUnknown: true, answer };
    // Nothing of this step was sent.
    case 'window_unsettled':
      return { result: 'retry', retryAfterMs, notSent: true, answer };
    default:
      return { result: 'refused', answer, detail: error.message };
  }
}

/** `calls` tells the step's own call refused for want of a slot: a wait, not a busy device. */
function resultOf(
  answer: StoredAnswer,
  nowMs: number,
  calls: StepCalls,
  upstreamNowMs: number,
): StepResult {
  const stepAnswer: StepAnswer = { status: answer.status, body: answer.body };
  if (answer.status >= 200 && answer.status < 300) return { result: 'sent', answer: stepAnswer };
  const problem = ProblemSchema.safeParse(answer.body);
  const waitS = Number(answer.headers?.['retry-after']);
  const retryAfterMs = Number.isFinite(waitS) ? waitS * 1000 : undefined;
  if (answer.status === 429 && calls.refusedUntilMs !== undefined)
    return {
      result: 'wait',
      retryAfterMs: Math.max(1000, calls.refusedUntilMs - upstreamNowMs),
      notSent: true,
      answer: stepAnswer,
    };
  if (answer.status === 429) {
    const retryAt = (problem.success ? problem.data.details : undefined) as
      { retryAt?: string } | undefined;
    const untilMs = retryAt?.retryAt ? Date.parse(retryAt.retryAt) - nowMs : undefined;
    return {
      result: 'busy',
      retryAfterMs: Math.max(1000, retryAfterMs ?? untilMs ?? BUSY_DEFAULT_MS),
      answer: stepAnswer,
    };
  }
  // Unknown outcome, or nothing sent: the same key again later, which the ledger settles first.
  if (answer.status >= 500)
    return {
      result: 'retry',
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(problem.success && problem.data.code === 'outcome_unknown'
        ? { outcomeUnknown: true }
        : {}),
      answer: stepAnswer,
      ...(problem.success && problem.data.detail ? { detail: problem.data.detail } : {}),
    };
  return {
    result: 'refused',
    answer: stepAnswer,
    detail:
      (problem.success ? problem.data.detail : undefined) ?? 'The vendor refused this change.',
  };
}

function answerOf(problem: ProblemError): StepAnswer {
  return { status: problem.problem.status, body: problem.problem };
}

/** As the person who made it; undefined once unusable. */
function callerOf(toSend: StepToSend, box: SecretBox, nowMs: number): Session | undefined {
  return actingFor({
    box,
    key: changeSealingContext(toSend.changeId),
    sealedSecret: toSend.secretCiphertext,
    actor: toSend.owner,
    nowMs,
  });
}
