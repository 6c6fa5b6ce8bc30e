import type { CancellationReason, CommandStatus } from './command.ts';

/** A cancellation reason in words an operator understands (docs/upstream.md, Status record). */
export const CANCELLATION_REASON_WORDS: Record<CancellationReason, string> = {
  manuallyCancel: 'Cancelled by an operator',
  timeWindowOverlap: 'Its window overlapped another command of the same device',
  startTimeExpire: 'The start time passed before the device could begin (device offline?)',
  deviceFault: 'A device fault prevented or stopped execution',
  notSupported: 'The device does not support a requested control',
};

/** A command status in words (docs/upstream.md, Lifecycle). */
export const COMMAND_STATUS_WORDS: Record<CommandStatus, string> = {
  received: 'Received (pending)',
  executing: 'Executing',
  completed: 'Completed',
  cancelled: 'Cancelled',
};
