import type { FleetBatchState } from '../../../../domain/fleet-job.ts';

/** A job's state in words: one home, shared with the overview. */
export { FLEET_JOB_STATE_WORDS } from '../../../../domain/words.ts';

/** A batch's state in words. */
export const FLEET_BATCH_STATE_WORDS: Record<FleetBatchState, string> = {
  pending: 'Waiting',
  sent: 'Sent',
  failed: 'Failed',
  skipped: 'Not sent',
};
