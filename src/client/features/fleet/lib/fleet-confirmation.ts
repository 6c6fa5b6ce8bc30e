import { isFinalStatus } from '../../../../domain/command.ts';
import {
  isFinalJobState,
  type FleetBatch,
  type FleetDeviceOutcome,
  type FleetJob,
} from '../../../../domain/fleet-job.ts';

/**
 * Where one device of a fleet job stands as to its command (docs/decisions/006, section 5): the
 * vendor's batch answer names no device command, so the BFF finds each in the device's history.
 * `found`: its command is known; `confirming`: its batch was sent and the command is not found
 * yet; `notFound`: the window has ended without it in the history; `failed`: the BFF gave up on
 * it (its `failure` says why); `notSent`: its batch is not sent; `unbound`: its site was unbound
 * before its command ended, so it is followed no more (final, not a failure).
 */
export type FleetDeviceConfirmation =
  'found' | 'confirming' | 'notFound' | 'failed' | 'notSent' | 'unbound';

/**
 * The confirmation of `device` of `batch`, the window's end being that of the batch's own command
 * (a dispatch plan's), else the job's; `nowMs` is when the job was read.
 */
export function fleetDeviceConfirmation(
  device: FleetDeviceOutcome,
  batch: Pick<FleetBatch, 'state' | 'command'>,
  job: Pick<FleetJob, 'command'>,
  nowMs: number,
): FleetDeviceConfirmation {
  if (device.failure) return 'failed';
  if (device.unbound) return 'unbound';
  if (device.commandId) return 'found';
  if (batch.state !== 'sent') return 'notSent';
  const endMs = Date.parse((batch.command ?? job.command).endTime);
  return nowMs >= endMs ? 'notFound' : 'confirming';
}

/** How many devices of the job are not confirmed yet, and not found in their history. */
export function countUnconfirmed(
  job: Pick<FleetJob, 'command' | 'batches'>,
  nowMs: number,
): { confirming: number; notFound: number } {
  const counts = { confirming: 0, notFound: 0 };
  for (const batch of job.batches)
    for (const device of batch.devices) {
      const state = fleetDeviceConfirmation(device, batch, job, nowMs);
      if (state === 'confirming' || state === 'notFound') counts[state] += 1;
    }
  return counts;
}

/** How often a finished job whose devices are not all confirmed yet is read again, in ms. */
export const CONFIRMING_JOB_REFRESH_MS = 5000;

/**
 * True while a device's command is known but not final, and its site bound: its outcome may
 * still change.
 */
const anyCommandLive = (job: Pick<FleetJob, 'batches'>) =>
  job.batches.some((batch) =>
    batch.devices.some(
      (device) =>
        device.commandId !== undefined &&
        !device.unbound &&
        device.status !== undefined &&
        !isFinalStatus(device.status),
    ),
  );

/**
 * When to read a job again: every `pollMs` while it sends or cancels; once it is final, every
 * {@link CONFIRMING_JOB_REFRESH_MS} while a device of a sent batch is not confirmed yet (the BFF
 * still looks for its command in the device's history) or a device's command is not final yet
 * (each read brings the job's outcomes up to date from the read model,
 * src/server/fleet/fleet-outcomes.ts); else never,
 * so the page's outcomes stay live until every device is final.
 */
export function fleetJobRefetchMs(
  job: FleetJob | undefined,
  nowMs: number,
  pollMs: number,
): number | false {
  if (!job) return pollMs;
  if (!isFinalJobState(job.state)) return pollMs;
  return countUnconfirmed(job, nowMs).confirming > 0 || anyCommandLive(job)
    ? CONFIRMING_JOB_REFRESH_MS
    : false;
}
