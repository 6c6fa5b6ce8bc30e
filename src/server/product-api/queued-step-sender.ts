import { ProblemSchema } from '../../domain/errors.ts';
import type { ChangeStep, StepAnswer } from '../../domain/queued-change.ts';
import type { SendStep, StepResult, StepToSend } from '../budget/change-runner.ts';
import type { ChangeOwner } from '../budget/queued-change-rows.ts';
import { ProblemError } from '../http/problem.ts';
import type { StoredAnswer } from '../ledger/ledger-answers.ts';
import type { LedgerIntent } from '../ledger/ledger-intent.ts';
import type { Change } from './changes.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { Session } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import { changeSealingContext } from './write-path.ts';

/**
 * The ledger's refusals that name a wait and leave the step to be tried again under its key: an
 * earlier try of it still under way or not settled (docs/architecture.md, Ledger).
 */
const TRY_AGAIN_CODES: ReadonlySet<string> = new Set([
  'idempotency_in_progress',
  'window_unsettled',
  'reconciliation_pending',
]);

/** How long a 429 without `Retry-After` leaves the devices alone, ms. */
const BUSY_DEFAULT_MS = 60_000;

/**
 * The queue of changes' `send` (src/server/budget, {@link SendStep}): runs one step of a queued
 * change through the command ledger under the step's `Idempotency-Key`, as the person who made the
 * change (their sign-in's client secret, sealed with the change), an undo's steps with the key of
 * the change they undo. The step's slots were taken by the queue before it is handed here, so the
 * call goes straight to the adapter. The ledger's answer says what came of it: sent, refused for
 * good, busy (a 429, never retried blind) or to be tried again (an unknown outcome, an earlier try
 * still settling).
 */
export function queuedStepSender(options: {
  ledger: Ledger;
  upstream: UpstreamApi;
  box: SecretBox;
  now: () => number;
}): SendStep {
  const { ledger, upstream, box, now } = options;
  return async (toSend: StepToSend): Promise<StepResult> => {
    const caller = callerOf(toSend, box, now());
    if (!caller) {
      const problem = new ProblemError(
        401,
        'not_signed_in',
        'The sign-in this change was made under can no longer be used, so it was not sent. Sign in and make the change again.',
      );
      return { result: 'refused', answer: answerOf(problem), detail: problem.message };
    }
    const { step, change } = toSend;
    try {
      const { answer } = await ledger.run({
        ...intentOf(step, caller, upstream),
        idempotencyKey: step.idempotencyKey,
        ...(change.kind === 'undo' ? { undoOf: change.undoOf } : {}),
      } as LedgerIntent);
      return resultOf(answer, now());
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      const waitS = Number(error.headers['retry-after']);
      if (TRY_AGAIN_CODES.has(error.problem.code))
        return {
          result: 'retry',
          ...(Number.isFinite(waitS) ? { retryAfterMs: waitS * 1000 } : {}),
          notSent: true,
          answer: answerOf(error),
        };
      return { result: 'refused', answer: answerOf(error), detail: error.message };
    }
  };
}

/** The caller token-cache ID of a queued change: apart from every session's and fleet job's. */
export function changeCallerId(changeId: string): string {
  return `queued-change:${changeId}`;
}

/** The ledger intent of one step, its call through the adapter as `caller`. */
function intentOf(step: ChangeStep, caller: Session, upstream: UpstreamApi): Change {
  switch (step.call) {
    case 'submit':
      return {
        kind: 'submit',
        session: caller,
        deviceId: step.deviceId,
        command: step.command,
        send: () => upstream.submit(caller, step.deviceId, step.command),
      };
    case 'cancel': {
      const ref = { deviceId: step.deviceId, commandId: step.commandId };
      return {
        kind: 'cancel',
        session: caller,
        ...ref,
        send: () => upstream.cancel(caller, ref),
      };
    }
    case 'batch':
      return {
        kind: 'batch',
        session: caller,
        batch: step.batch,
        send: () => upstream.batch(caller, step.batch),
      };
    case 'batchCancel':
      return {
        kind: 'batchCancel',
        session: caller,
        batchCommandId: step.batchCommandId,
        send: () => upstream.batchCancel(caller, step.batchCommandId),
      };
  }
}

/** What the ledger's answer to a step means for the queue. */
function resultOf(answer: StoredAnswer, nowMs: number): StepResult {
  const stepAnswer: StepAnswer = { status: answer.status, body: answer.body };
  if (answer.status >= 200 && answer.status < 300) return { result: 'sent', answer: stepAnswer };
  const problem = ProblemSchema.safeParse(answer.body);
  // The ledger stores `Retry-After` as whole seconds (the problems it keeps write it so).
  const waitS = Number(answer.headers?.['retry-after']);
  const retryAfterMs = Number.isFinite(waitS) ? waitS * 1000 : undefined;
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
  // An unknown outcome (a timeout, a 5xx) or a refusal that left nothing sent (an open circuit,
  // the token endpoint down): the same key again later, which the ledger settles first.
  if (answer.status >= 500)
    return {
      result: 'retry',
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
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

/** The sign-in a queued change acts under, from its sealed secret; undefined once unusable. */
function callerOf(toSend: StepToSend, box: SecretBox, nowMs: number): Session | undefined {
  const { secretCiphertext, owner, changeId } = toSend;
  if (!secretCiphertext) return undefined;
  let clientSecret: string;
  try {
    clientSecret = box.open(secretCiphertext, changeSealingContext(changeId));
  } catch {
    return undefined;
  }
  return {
    id: changeCallerId(changeId),
    region: owner.region,
    clientId: owner.clientId,
    clientSecret,
    ...(owner.operatorName ? { operatorName: owner.operatorName } : {}),
    // Each step is recorded in the ledger as the person's who made the change.
    ...(owner.operator ? { operator: operatorOf(owner) } : {}),
    createdAtMs: nowMs,
    lastSeenAtMs: nowMs,
  };
}

function operatorOf(owner: ChangeOwner): NonNullable<Session['operator']> {
  const operator = owner.operator as NonNullable<ChangeOwner['operator']>;
  return {
    issuer: operator.issuer,
    subject: operator.subject,
    ...(operator.name ? { name: operator.name } : {}),
    ...(operator.email ? { email: operator.email } : {}),
    role: operator.role,
  };
}
