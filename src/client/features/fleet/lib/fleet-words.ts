import type {
  FleetBatch,
  FleetBatchState,
  FleetDeviceOutcome,
  FleetJob,
} from '#domain/fleet-job.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '#domain/words.ts';
import { fleetDeviceConfirmation } from './fleet-confirmation.ts';

/** A job's state in words: one home, shared with the overview. */
export { FLEET_JOB_STATE_WORDS } from '#domain/words.ts';

export const FLEET_BATCH_STATE_WORDS: Record<FleetBatchState, string> = {
  pending: 'Waiting',
  sent: 'Sent',
  failed: 'Failed',
  skipped: 'Not sent',
};

/** What the job page and CSV say of one device: failed, not sent, unconfirmed, not found, unfollowed, or its status and reason. */
export function deviceStatusWords(
  device: FleetDeviceOutcome,
  batch: FleetBatch,
  job: FleetJob,
  nowMs: number,
): string {
  switch (fleetDeviceConfirmation(device, batch, job, nowMs)) {
    case 'failed':
      return 'Failed';
    case 'notSent':
      return 'Not sent';
    case 'confirming':
      return "Sent, not confirmed yet: its command is looked for in the device's history";
    case 'notFound':
      return "Not found in the device's history: the window has ended without its command. Check the device's history before sending again";
    case 'unbound':
      return `Site unbound: no longer followed. Its command may still run on the vendor until the site is bound again${device.status ? `. Last read: ${COMMAND_STATUS_WORDS[device.status]}` : ''}`;
    case 'found':
      break;
  }
  if (!device.status) return 'Sent';
  const words = COMMAND_STATUS_WORDS[device.status];
  return device.cancelReason
    ? `${words}: ${CANCELLATION_REASON_WORDS[device.cancelReason]}`
    : words;
}
