import type {
  QueuedAnswer,
  QueuedChangeStatus,
  QueuedChangeStepStatus,
  QueuedReason,
} from '#domain/queued-change.ts';
import { QUEUED_CHANGE_KIND_WORDS } from '#domain/words.ts';
import { describePowerControl } from '../../lib/power-control-words.ts';
import {
  clockTimeWithSeconds,
  formatInZoneWithUtc,
  formatWindowInZoneWithUtc,
} from '../../lib/time.ts';

const WHY: Record<QueuedReason, string> = {
  no_slot: "the device's calls to the vendor for this minute are spent",
  device_busy: 'the vendor said the device is busy',
  changes_waiting: 'changes queued before it on the same devices go first',
};

/**
 * A queued change in words (docs/decisions/007-device-call-budget.md, section 2): when it goes on
 * `timeZone` with UTC, why, and whether it can still be withdrawn.
 *
 * @param timeZone the site's zone (IANA or fixed offset); `UTC` for devices in several.
 */
export function queuedWords(
  { queued }: QueuedAnswer,
  timeZone: string,
  withdrawable = true,
): string {
  return `Queued: it goes at ${formatInZoneWithUtc(queued.goesAt, timeZone)}, because ${WHY[queued.reason]}. ${
    withdrawable
      ? 'Until then you can withdraw it under Queued changes.'
      : 'Its first call went, so it can no longer be withdrawn.'
  }`;
}

function stepWords(step: QueuedChangeStepStatus, timeZone: string): string {
  switch (step.call) {
    case 'submit':
    case 'batch': {
      const what = step.command
        ? `${describePowerControl(step.command.powerControl)}, ${formatWindowInZoneWithUtc(step.command.startTime, step.command.endTime, timeZone)}`
        : 'a command';
      return step.call === 'batch'
        ? `send ${what} to ${step.deviceIds.length} devices`
        : `send ${what}`;
    }
    case 'cancel':
      return step.commandId ? `cancel command ${step.commandId}` : 'cancel a command';
    case 'batchCancel':
      return step.batchCommandId ? `cancel batch ${step.batchCommandId}` : 'cancel a batch';
  }
}

/** A queued change in words for the list: `Replace: cancel command cmd_1, then send Charge 5 kW, …`. */
export function queuedChangeWords(change: QueuedChangeStatus, timeZone: string): string {
  return `${QUEUED_CHANGE_KIND_WORDS[change.kind]}: ${change.steps.map((step) => stepWords(step, timeZone)).join(', then ')}`;
}

/** Where a waiting change stands: when it goes, or that it is being sent now. */
export function queuedChangeWhen(change: QueuedChangeStatus, timeZone: string): string {
  if (change.state === 'sending') return 'Being sent now; it can no longer be withdrawn.';
  return change.goesAt
    ? `Goes at ${formatInZoneWithUtc(change.goesAt, timeZone)}.`
    : 'Goes at its device’s next free call.';
}

/** `cancel queued, goes at 14:05:20` on the site's clock, as the timeline and device page say it. */
export function queuedCancelWords(goesAt: string | number, timeZone: string): string {
  return `cancel queued, goes at ${clockTimeWithSeconds(goesAt, timeZone)}`;
}

/**
 * What a screen said when its change was queued, to follow it: `what` names it, `waitingWords`
 * replaces `<what> not sent yet.` while it waits.
 */
export interface QueuedLine {
  what: string;
  queued: QueuedAnswer['queued'];
  timeZone: string;
  withdrawable?: boolean | undefined;
  waitingWords?: string | undefined;
}

/**
 * The line of a queued change as it stands (docs/decisions/007-device-call-budget.md, sections 2
 * and 4): waiting, sent (with its new ID), refused, not sent, or withdrawn.
 *
 * @param change the change as last read, undefined before.
 */
export function queuedLineWords(line: QueuedLine, change: QueuedChangeStatus | undefined): string {
  const { what, queued, timeZone } = line;
  const detail = change?.outcome?.detail;
  switch (change?.state) {
    case undefined:
    case 'queued':
    case 'sending': {
      const goesAt = change?.goesAt ?? queued.goesAt;
      const withdrawable = change ? change.state === 'queued' : (line.withdrawable ?? true);
      return `${line.waitingWords ?? `${what} not sent yet.`} ${queuedWords({ queued: { ...queued, goesAt } }, timeZone, withdrawable)}`;
    }
    case 'sent': {
      const sentAt = change.steps.findLast((step) => step.sentAt)?.sentAt;
      return `${what} sent${sentAsWords(change)}${
        sentAt ? ` at ${formatInZoneWithUtc(sentAt, timeZone)}` : ''
      }, after waiting for the device's next free call.`;
    }
    case 'failed':
      return change.outcome?.failure === 'refused'
        ? `${what} refused by the vendor when it went. ${detail ?? 'The vendor gave no reason.'}`
        : `${what} not sent. ${detail ?? 'It could not be sent.'}`;
    case 'withdrawn':
      return `${what} not sent. ${detail ?? 'It was withdrawn before it was sent.'}`;
  }
}

function sentAsWords(change: QueuedChangeStatus): string {
  const step = change.steps.findLast(
    (candidate) => (candidate.call === 'submit' || candidate.call === 'batch') && candidate.answer,
  );
  const body = step?.answer?.body as { id?: unknown; batchCommandId?: unknown } | undefined;
  if (step?.call === 'submit' && typeof body?.id === 'string' && body.id)
    return ` as command ${body.id}`;
  if (step?.call === 'batch' && typeof body?.batchCommandId === 'string' && body.batchCommandId)
    return ` as batch ${body.batchCommandId}`;
  return '';
}
