import type { CancellationReason, CommandStatus } from './command.ts';
import type { FleetJobState } from './fleet-job.ts';
import type { QueuedChangeKind } from './queued-change.ts';

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

/** A fleet job's state in words (docs/fleet-dispatch.md): the job pages and the overview. */
export const FLEET_JOB_STATE_WORDS: Record<FleetJobState, string> = {
  running: 'Sending',
  paused: 'Paused',
  cancelling: 'Cancelling what was sent',
  completed: 'Every batch sent',
  cancelled: 'Cancelled',
  aborted: 'Stopped by its abort rule',
  failed: 'Stopped',
};

/**
 * A queued change's kind in words (docs/decisions/007-device-call-budget.md, section 2): the
 * lists of queued changes and the refusal of a second change of a command.
 */
export const QUEUED_CHANGE_KIND_WORDS: Record<QueuedChangeKind, string> = {
  submit: 'New command',
  cancel: 'Cancel',
  replace: 'Replace',
  undo: 'Undo',
  batch: 'Batch',
  batchCancel: 'Batch cancel',
};
