import { isActiveStatus, type CommandStatus } from './command.ts';
import { toWindowMs, windowsOverlap, type TimeWindow, type WindowMs } from './time-window.ts';

/** Anything with a status and an effective window: a status record, a ledger entry, a bar. */
export interface WindowedCommand extends TimeWindow {
  status: CommandStatus;
}

/** The command being checked, when it already exists: its own commands are never in its way. */
export interface OverlapSubject {
  /** The batch being checked: none of its device commands counts as overlapping it. */
  batchCommandId?: string | undefined;
}

/**
 * The first active (received or executing) command whose window overlaps `window`, or `undefined`.
 * This is the one overlap rule of the project: the sandbox rejects with it (409), the BFF
 * pre-checks with it and the timeline refuses a drag with it (docs/upstream.md, Lifecycle;
 * docs/architecture.md, Parts and data flow). Touching windows do not overlap. A batch checked
 * after it was sent meets its own device commands in the devices' histories; those are the
 * batch, not in its way, so `subject.batchCommandId` leaves them out. Linear in the number of
 * commands.
 */
export function findActiveOverlap<T extends WindowedCommand & { batchCommandId?: string }>(
  window: WindowMs,
  commands: Iterable<T>,
  subject: OverlapSubject = {},
): T | undefined {
  for (const command of commands) {
    if (subject.batchCommandId !== undefined && command.batchCommandId === subject.batchCommandId)
      continue;
    if (isActiveStatus(command.status) && windowsOverlap(window, toWindowMs(command)))
      return command;
  }
  return undefined;
}
