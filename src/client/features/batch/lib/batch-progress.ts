import type { CancellationReason, CommandStatus, StatusRecord } from '#domain/command.ts';
import type { BatchCancelResult } from '#domain/batch.ts';

/**
 * Devices per standing: their command's status (`unknown` unread), `confirming`, `notFound`
 * (docs/decisions/006, section 5), `unbound` (site unbound before its command was final).
 */
export type BatchCounts = Record<
  CommandStatus | 'unknown' | 'confirming' | 'notFound' | 'unbound',
  number
>;

/** Counts of a batch with no device in any standing: what counting starts from. */
export const noCounts = (): BatchCounts => ({
  received: 0,
  executing: 0,
  completed: 0,
  cancelled: 0,
  unknown: 0,
  confirming: 0,
  notFound: 0,
  unbound: 0,
});

/** Counts the followed commands' statuses (undefined: unread) and the unconfirmed, not found and unbound devices. */
export function countStatuses(
  records: readonly (Pick<StatusRecord, 'status'> | undefined)[],
  others: { confirming: number; notFound: number; unbound?: number } = {
    confirming: 0,
    notFound: 0,
  },
): BatchCounts {
  const counts = noCounts();
  for (const record of records) counts[record ? record.status : 'unknown'] += 1;
  counts.confirming = others.confirming;
  counts.notFound = others.notFound;
  counts.unbound = others.unbound ?? 0;
  return counts;
}

/** The devices whose part is over: completed, cancelled, or site unbound. */
export const finalDevices = (counts: BatchCounts): number =>
  counts.completed + counts.cancelled + counts.unbound;

/** Every device of the batch, whatever it stands at. */
export const countedDevices = (counts: BatchCounts): number =>
  Object.values(counts).reduce((a, b) => a + b, 0);

const devicesWord = (n: number) => `${n} device${n === 1 ? '' : 's'}`;

/**
 * One honest line over every device sent: finished only when all are found and final, "all
 * completed" only when none was cancelled, unreadable or not found. Partial failure is never success.
 */
export function summarizeBatch(counts: BatchCounts): {
  tone: 'info' | 'success' | 'warning';
  words: string;
} {
  const total = countedDevices(counts);
  const active = counts.received + counts.executing;
  const final = finalDevices(counts);
  const unbound = counts.unbound > 0 ? `, ${counts.unbound} no longer followed (site unbound)` : '';
  const notFound =
    counts.notFound > 0
      ? ` ${devicesWord(counts.notFound)} had no command in ${counts.notFound === 1 ? 'its' : 'their'} history: check ${counts.notFound === 1 ? 'it' : 'them'} before sending again.`
      : '';
  if (counts.confirming > 0)
    return {
      tone: 'info',
      words: `In progress: ${final} of ${total} device commands are final; ${devicesWord(counts.confirming)} not confirmed yet.${notFound}`,
    };
  if (counts.unknown > 0 && active === 0)
    return {
      tone: 'warning',
      words: `${counts.unknown} of ${total} device commands could not be read; the others are final.${notFound}`,
    };
  if (active > 0 || counts.unknown > 0)
    return {
      tone: counts.notFound > 0 ? 'warning' : 'info',
      words: `In progress: ${final} of ${total} device commands are final.${notFound}`,
    };
  if (counts.notFound > 0)
    return {
      tone: 'warning',
      words: `Finished without ${devicesWord(counts.notFound)}: ${counts.completed} of ${total} completed, ${counts.cancelled} cancelled${unbound}.${notFound}`,
    };
  if (counts.cancelled === 0 && counts.unbound === 0)
    return { tone: 'success', words: `Finished: all ${total} device commands completed.` };
  if (counts.cancelled === 0)
    return {
      tone: 'warning',
      words: `Finished: ${counts.completed} of ${total} completed${unbound}.`,
    };
  return {
    tone: 'warning',
    words: `Finished with cancellations: ${counts.completed} of ${total} completed, ${counts.cancelled} cancelled${unbound}.`,
  };
}

/** A batch cancel's results split into successes and failures, each in device order. */
export function splitCancelResults(results: readonly BatchCancelResult[]): {
  succeeded: BatchCancelResult[];
  failed: BatchCancelResult[];
} {
  return {
    succeeded: results.filter((r) => r.success),
    failed: results.filter((r) => !r.success),
  };
}

const FAILURE_WORDS: Partial<Record<CommandStatus, string>> = {
  completed: 'It had already completed: a completed command cannot be cancelled.',
  cancelled: 'It was already cancelled.',
};

const CANCELLED_BEFORE: Partial<Record<CancellationReason, string>> = {
  timeWindowOverlap: 'It was already cancelled: its window overlapped another command.',
  startTimeExpire: 'It was already cancelled: its start time expired.',
  deviceFault: 'It was already cancelled by a device fault.',
  notSupported: 'It was already cancelled: the device does not support a requested control.',
  manuallyCancel: 'It was already cancelled by an operator.',
};

/** Why one device's cancel failed: from its status after the attempt (and reason), else the upstream's message. */
export function cancelFailureWords(result: BatchCancelResult, reason?: CancellationReason): string {
  if (result.status === 'cancelled' && reason && CANCELLED_BEFORE[reason])
    return CANCELLED_BEFORE[reason];
  const known = result.status ? FAILURE_WORDS[result.status] : undefined;
  if (known) return known;
  const reasonWords = result.error ? result.error.message : 'No reason given.';
  return result.status
    ? `Still ${result.status}: ${reasonWords} You can retry this device alone.`
    : `${reasonWords} Its command's status shows whether it can still be cancelled.`;
}
