import type {
  CancellationReason,
  CommandStatus,
  StatusRecord,
} from '../../../../domain/command.ts';
import type { BatchCancelResult } from '../../../../domain/batch.ts';

/** How many device commands of a batch are in each status; `unknown` while not read yet. */
export type BatchCounts = Record<CommandStatus | 'unknown', number>;

/** Counts the statuses of a batch's device commands (undefined: not read yet, or unreadable). */
export function countStatuses(records: readonly (StatusRecord | undefined)[]): BatchCounts {
  const counts: BatchCounts = { received: 0, executing: 0, completed: 0, cancelled: 0, unknown: 0 };
  for (const record of records) counts[record ? record.status : 'unknown'] += 1;
  return counts;
}

/**
 * One line that sums a batch up honestly: finished only when every device command is final, and
 * "all completed" only when none was cancelled or unreadable. Partial failure is never success.
 */
export function summarizeBatch(counts: BatchCounts): {
  tone: 'info' | 'success' | 'warning';
  words: string;
} {
  const total =
    counts.received + counts.executing + counts.completed + counts.cancelled + counts.unknown;
  const active = counts.received + counts.executing;
  if (counts.unknown > 0 && active === 0)
    return {
      tone: 'warning',
      words: `${counts.unknown} of ${total} device commands could not be read; the others are final.`,
    };
  if (active > 0 || counts.unknown > 0)
    return {
      tone: 'info',
      words: `In progress: ${counts.completed + counts.cancelled} of ${total} device commands are final.`,
    };
  if (counts.cancelled === 0)
    return { tone: 'success', words: `Finished: all ${total} device commands completed.` };
  return {
    tone: 'warning',
    words: `Finished with cancellations: ${counts.completed} of ${total} completed, ${counts.cancelled} cancelled.`,
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

/**
 * Why one device's cancel failed, in words: from the command's status after the attempt (and its
 * cancellation reason when known), else the upstream's message.
 */
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
