import { isCancellable } from '#domain/command.ts';
import type { FleetJob } from '#domain/fleet-job.ts';
import { COMMAND_STATUS_WORDS } from '#domain/words.ts';
import { fleetDeviceConfirmation } from './fleet-confirmation.ts';

/** What cancelling the chosen devices of a job will do, before it is confirmed. */
export interface FleetCancelPlan {
  toCancel: { deviceId: string; commandId: string }[];
  untouched: { deviceId: string; why: string }[];
}

/** Splits chosen devices into commands to cancel and those left, each with why (docs/upstream.md, Lifecycle). */
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

/** Devices that failed the command and may get it again (BFF gave up, not found, vendor-cancelled), in batch order, once. */
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
