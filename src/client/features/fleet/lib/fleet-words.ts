import type { FleetBatchState, FleetJobState } from '../../../../domain/fleet-job.ts';

/** A job's state in words. */
export const FLEET_JOB_STATE_WORDS: Record<FleetJobState, string> = {
  running: 'Sending',
  paused: 'Paused',
  cancelling: 'Cancelling what was sent',
  completed: 'Every batch sent',
  cancelled: 'Cancelled',
  aborted: 'Stopped by its abort rule',
  failed: 'Stopped',
};

/** A batch's state in words. */
export const FLEET_BATCH_STATE_WORDS: Record<FleetBatchState, string> = {
  pending: 'Waiting',
  sent: 'Sent',
  failed: 'Failed',
  skipped: 'Not sent',
};
