import { isCancellable } from '../../../../domain/command.ts';
import type { FleetJob } from '../../../../domain/fleet-job.ts';
import { COMMAND_STATUS_WORDS } from '../../../../domain/words.ts';
import { fleetDeviceConfirmation } from './fleet-confirmation.ts';

/** What cancelling the chosen devices of a job will do, before it is confirmed. */
export interface FleetCancelPlan {
  /** Device commands cancelled one by one: received, executing, or status not read yet. */
  toCancel: { deviceId: string; commandId: string }[];
  /** Chosen devices left as they are, each with why, in the product's words. */
  untouched: { deviceId: string; why: string }[];
}

/**
 * Splits the chosen devices of `job` (in batch order) into the device commands a cancel sends and
 * the devices it leaves: one without a command (not sent, failed, not confirmed yet or not found)
 * has nothing to cancel, one whose site is unbound is out of reach, and a completed or cancelled command cannot be (docs/upstream.md,
 * Lifecycle). `nowMs` is when the job was read.
 */
export function planFleetCancel(
  job: FleetJob,
  chosen: ReadonlySet<string>,
  nowMs: number,
): FleetCancelPlan {
  const plan: FleetCancelPlan = { toCancel: [], untouched: [] };
  for (const batch of job.batches)
    for (const device of batch.devices) {
      if (!chosen.has(device.deviceId)) continue;
      const { deviceId, commandId, status } = device;
      if (device.unbound)
        plan.untouched.push({
          deviceId,
          why: 'its site is unbound: powerdeck no longer reaches it',
        });
      else if (commandId === undefined)
        plan.untouched.push({
          deviceId,
          why:
            fleetDeviceConfirmation(device, batch, job, nowMs) === 'confirming'
              ? 'its command is not confirmed yet'
              : 'it has no command',
        });
      else if (status !== undefined && !isCancellable(status))
        plan.untouched.push({
          deviceId,
          why: `its command is already ${COMMAND_STATUS_WORDS[status].toLowerCase()}`,
        });
      else plan.toCancel.push({ deviceId, commandId });
    }
  return plan;
}

/**
 * The devices of `job` that failed to carry out its command and may get it again: the BFF gave up
 * on them, their window ended without the command in their history, or the vendor cancelled
 * their command (an overlap, an expired start, a fault, a control they lack; not an operator's
 * cancel). In batch order, each once.
 */
export function fleetFailedDevices(job: FleetJob, nowMs: number): string[] {
  const failed = new Set<string>();
  for (const batch of job.batches)
    for (const device of batch.devices) {
      const confirmation = fleetDeviceConfirmation(device, batch, job, nowMs);
      if (
        confirmation === 'failed' ||
        confirmation === 'notFound' ||
        (device.status === 'cancelled' &&
          device.cancelReason !== undefined &&
          device.cancelReason !== 'manuallyCancel')
      )
        failed.add(device.deviceId);
    }
  return [...failed];
}
