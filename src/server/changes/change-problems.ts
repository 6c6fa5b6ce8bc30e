import {
  BudgetTooTightDetailsSchema,
  ChangeWouldWaitDetailsSchema,
  ProblemSchema,
} from '#domain/errors.ts';
import { CHANGE_LEAD_TIME_MS } from '#domain/lead-time.ts';
import { deviceBudgetWords, type DeviceCallBudget } from '#domain/device-budget.ts';
import {
  ChangeAlreadyQueuedDetailsSchema,
  type QueuedChangeStatus,
} from '#domain/queued-change.ts';
import { siteClockWords } from '#domain/time.ts';
import { QUEUED_CHANGE_KIND_WORDS } from '#domain/words.ts';
import type { QueueOutcome } from '../budget/queued-change-rows.ts';
import type { DeviceCommandsRecorder } from '../ledger/device-commands-recorder.ts';
import { ProblemError } from '../http/problem.ts';

/**
 * The refusals of a change to a device in the product's words (docs/decisions/007-device-call-budget.md,
 * sections 2 and 5), times on the site's clock: what the write path answers instead of sending.
 */

/** 409 `change_would_wait`, worded with when its first call would go on the site's clock (`timeZone`; UTC when not known). */
export function wouldWait(
  budget: DeviceCallBudget,
  deviceIds: readonly string[],
  goesAtMs: number,
  timeZone: string | undefined,
): ProblemError {
  const their = deviceIds.length === 1 ? "the device's" : "the devices'";
  return new ProblemError(
    409,
    'change_would_wait',
    `Not sent: ${their} calls to the vendor this minute are spent (${deviceBudgetWords(budget)}), so this change would wait until ${siteClockWords(goesAtMs, timeZone)}. Nothing was sent or queued; send it again to queue it.`,
    {
      details: ChangeWouldWaitDetailsSchema.parse({
        deviceIds,
        goesAt: new Date(goesAtMs).toISOString(),
      }),
    },
  );
}

/**
 * 409 `budget_too_tight`, worded with the earliest start on the site's clock (`timeZone`; UTC when
 * not known): the last call of `plan` (epoch ms) misses the lead time (decision 007, section 2).
 */
export function tooTight(
  budget: DeviceCallBudget,
  deviceIds: readonly string[],
  plan: readonly number[],
  earliestStartMs: number,
  timeZone: string | undefined,
): ProblemError {
  const lastCallAtMs = plan.at(-1) ?? earliestStartMs - CHANGE_LEAD_TIME_MS;
  const who = deviceIds.length === 1 ? 'This device' : 'These devices';
  return new ProblemError(
    409,
    'budget_too_tight',
    `${who} can take the change at ${siteClockWords(lastCallAtMs, timeZone)} at the earliest: ${deviceIds.length === 1 ? 'its' : 'their'} calls to the vendor this minute are spent (${deviceBudgetWords(budget)}). A window starting before ${siteClockWords(earliestStartMs, timeZone)} cannot be sent in time, so nothing was sent. Choose a later start, or try again in a minute.`,
    {
      details: BudgetTooTightDetailsSchema.parse({
        deviceIds,
        lastCallAt: new Date(lastCallAtMs).toISOString(),
        earliestStart: new Date(earliestStartMs).toISOString(),
        limit: budget.limit,
        windowSeconds: Math.round(budget.windowMs / 1000),
      }),
    },
  );
}

/** 422 `idempotency_key_reused`: the key names another change. */
export function keyReused(): ProblemError {
  return new ProblemError(
    422,
    'idempotency_key_reused',
    'This attempt was already used for a different change, so it was not sent. Reload the page and make the change again.',
  );
}

export function withdrawn(status: QueuedChangeStatus): ProblemError {
  return new ProblemError(
    409,
    'change_not_withdrawable',
    'This change was withdrawn before it was sent, so nothing was sent. Make it again if it is still wanted.',
    { details: { change: status } },
  );
}

export function incomplete(status: QueuedChangeStatus): ProblemError {
  const sentCancel = status.steps.find((step) => step.call === 'cancel' && step.state === 'sent');
  const refused = status.steps.find((step) => step.state === 'failed');
  const why = ProblemSchema.safeParse(refused?.answer?.body);
  return new ProblemError(
    409,
    'change_incomplete',
    `${sentCancel?.commandId ? `Command ${sentCancel.commandId} was cancelled` : 'The first step was sent'}, but the new window was refused${why.success && why.data.detail ? `: ${why.data.detail}` : '.'} Restore the old window, or send a new one.`,
    { details: { change: status } },
  );
}

export function notSentProblem(status: QueuedChangeStatus): ProblemError {
  return new ProblemError(
    502,
    'upstream_error',
    status.outcome?.detail ??
      "The change could not be sent: the vendor's service kept failing. Nothing was sent; try again in a moment.",
    { details: { change: status } },
  );
}

/** 409 `device_changed`: what another person changed on the device since the version seen. */
export function deviceChanged(
  deviceId: string,
  since: Awaited<ReturnType<DeviceCommandsRecorder['changesSince']>>,
  timeZone: string | undefined,
): ProblemError {
  const words = since.changes
    .slice(0, 5)
    .map((change) => {
      const by = change.madeBy ? `by ${change.madeBy}` : 'by someone else';
      const window = `${siteClockWords(Date.parse(change.startTime), timeZone)} to ${siteClockWords(Date.parse(change.endTime), timeZone)}`;
      return change.kind === 'commandAdded'
        ? `command ${change.commandId} was added ${by} for ${window}`
        : `command ${change.commandId} (${window}) was cancelled ${change.cancelReason === 'manuallyCancel' || change.madeBy ? by : 'by the device'}`;
    })
    .join('; ');
  const more = since.changes.length > 5 ? ` and ${since.changes.length - 5} more` : '';
  return new ProblemError(
    409,
    'device_changed',
    `${deviceId} changed since you opened it: ${words}${more}. Nothing was sent. Look at its commands again, then make your change if it still applies.`,
    { details: since },
  );
}

/**
 * 409 `change_already_queued`: a change of a command, or a cancel of a batch, that a queued change
 * will cancel already (a command, and a batch, has at most one queued change; domain
 * `queuedCancelOf`, `queuedBatchCancelOf`), worded with when that one goes on the site's clock
 * (`timeZone`; UTC when not known) and how to make another instead.
 */
export function alreadyQueued(
  outcome: Extract<QueueOutcome, { reason: 'already_queued' }>,
  timeZone: string | undefined,
): ProblemError {
  const { kind } = outcome.waiting.change;
  const what = QUEUED_CHANGE_KIND_WORDS[kind].toLowerCase();
  const article = /^[aeiou]/.test(what) ? 'An' : 'A';
  const of =
    'batchCommandId' in outcome
      ? { subject: `batch ${outcome.batchCommandId}`, another: 'To cancel the batch again' }
      : {
          subject: `command ${outcome.commandId}`,
          another: 'To change the command another way',
        };
  const target =
    'batchCommandId' in outcome
      ? { batchCommandId: outcome.batchCommandId }
      : { deviceId: outcome.deviceId, commandId: outcome.commandId };
  return new ProblemError(
    409,
    'change_already_queued',
    `${article} ${what} of ${of.subject} is already queued: it goes at ${siteClockWords(outcome.goesAtMs, timeZone)}. Nothing more was sent or queued. ${of.another}, withdraw that ${what} first (under Queued changes).`,
    {
      details: ChangeAlreadyQueuedDetailsSchema.parse({
        ...target,
        changeId: outcome.waiting.id,
        kind,
        goesAt: new Date(outcome.goesAtMs).toISOString(),
      }),
    },
  );
}
