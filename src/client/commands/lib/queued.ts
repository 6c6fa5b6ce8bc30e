import type {
  QueuedAnswer,
  QueuedChangeStatus,
  QueuedChangeStepStatus,
  QueuedReason,
} from '../../../domain/queued-change.ts';
import { QUEUED_CHANGE_KIND_WORDS } from '../../../domain/words.ts';
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
 * A change the BFF queued for its devices' budget of upstream calls, in words: `Queued: it goes at
 * 2026-11-21 14:03 (Europe/Berlin), UTC 2026-11-21 13:03, because the device's calls to the vendor
 * for this minute are spent.` (docs/decisions/007-device-call-budget.md, section 2), then that it
 * can be withdrawn under Queued changes (the page of that name) until then; or, for a change of
 * two calls whose first went already (`withdrawable` false), that it no longer can.
 *
 * @param timeZone the zone of the site the change is for (IANA or a fixed offset); `UTC` when the
 *   devices are in several.
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

/** One step of a queued change in words: what it sends, windows on `timeZone` with UTC at hand. */
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

/**
 * A queued change in words for the list of changes: `Replace: cancel command cmd_1, then send
 * Charge 5 kW, …`, its steps in sending order.
 */
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

/**
 * `cancel queued, goes at 14:05:20`: a command whose cancel waits for its device's next call to
 * the vendor, when it goes on the clock of `timeZone` (the site's), to the second. The timeline's
 * bar and the device page's command row say it alike.
 */
export function queuedCancelWords(goesAt: string | number, timeZone: string): string {
  return `cancel queued, goes at ${clockTimeWithSeconds(goesAt, timeZone)}`;
}

/**
 * What a screen said when its change was queued, to follow that change to its end: `what` names
 * the change in the screen's words (`Command`, `Batch`, `Replace of command cmd_1 on Battery A`),
 * `queued` is the BFF's queued answer, `timeZone` the site's clock. `waitingWords` replaces the
 * opening `<what> not sent yet.` while it waits; `withdrawable` as {@link queuedWords}.
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
 * and 4): while it waits (or before it was read), `Command not sent yet. Queued: it goes at …`;
 * once it went, that it was sent (with the new command's ID when it made one); refused by the
 * vendor, not sent, or withdrawn, with the reason in words as the BFF gave it.
 *
 * @param change the change as last read (`GET /api/changes/{changeId}`), undefined before.
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

/** What a sent change's last submission made, in words: `as command cmd_1`, `as batch b_1`. */
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
