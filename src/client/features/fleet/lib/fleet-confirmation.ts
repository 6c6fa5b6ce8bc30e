import { isFinalStatus } from '#domain/command.ts';
import {
  isFinalJobState,
  type FleetBatch,
  type FleetDeviceOutcome,
  type FleetJob,
} from '#domain/fleet-job.ts';

/**
 * Where one device stands as to its command (docs/decisions/006, section 5): `found`, `confirming`,
 * `notFound` (window ended), `failed` (BFF gave up), `notSent`, `unbound` (final, not a failure).
 */
export type FleetDeviceConfirmation =
  'found' | 'confirming' | 'notFound' | 'failed' | 'notSent' | 'unbound';

/** A device's confirmation; the window's end is the batch command's (a plan's), else the job's. */
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

/** True while a known command is not final and its site bound: its outcome may still change. */
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
 * When to read a job again: every `pollMs` while it sends or cancels; once final, every
 * {@link CONFIRMING_JOB_REFRESH_MS} while a device is unconfirmed or not final
 * (src/server/fleet/fleet-outcomes.ts); else never.
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
