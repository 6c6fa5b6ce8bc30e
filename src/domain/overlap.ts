import { isActiveStatus, type CommandStatus } from './command.ts';
import { toWindowMs, windowsOverlap, type TimeWindow, type WindowMs } from './time-window.ts';

/** Anything with a status and an effective window: a status record, a ledger entry, a bar. */
export interface WindowedCommand extends TimeWindow {
  status: CommandStatus;
}

/**
 * The first active (received or executing) command whose window overlaps `window`, or `undefined`.
 * This is the one overlap rule of the project: the sandbox rejects with it (409), the BFF
 * pre-checks with it and the timeline refuses a drag with it (spec 3.1 rule 2;
 * docs/architecture.md, Parts and data flow). Touching windows do not overlap. Linear in the number
 * of commands.
 */
export function findActiveOverlap<T extends WindowedCommand>(
  window: WindowMs,
  commands: Iterable<T>,
): T | undefined {
  for (const command of commands) {
    if (isActiveStatus(command.status) && windowsOverlap(window, toWindowMs(command)))
      return command;
  }
  return undefined;
}
