import { progressOf, type FleetJob } from '#domain/fleet-job.ts';

/** The job ID of {@link testFleetJob}. */
export const TEST_FLEET_JOB_ID = '0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b';

/**
 * A fleet job as the BFF answers it: running, 3 kW discharge 17:00–19:00 UTC on 2030-01-01,
 * started at 12:00 UTC, one pending batch of device `BAT-1` and nothing sent; `overrides` replace
 * whole fields (progress, batches, rollout ...).
 */
export function testFleetJob(overrides: Partial<FleetJob> = {}): FleetJob {
  const batches: FleetJob['batches'] = [
    { index: 0, state: 'pending', attempts: 0, devices: [{ deviceId: 'BAT-1' }] },
  ];
  return {
    jobId: TEST_FLEET_JOB_ID,
    state: 'running',
    command: {
      powerControl: { targetBatteryPowerW: 3000 },
      startTime: '2030-01-01T17:00:00.000Z',
      endTime: '2030-01-01T19:00:00.000Z',
    },
    rollout: { batchSize: 50, batchesPerMinute: 10, abortPercent: 10 },
    createdAt: '2030-01-01T12:00:00.000Z',
    updatedAt: '2030-01-01T12:00:05.000Z',
    progress: progressOf(batches),
    batches,
    ...overrides,
  };
}

/** A fleet job's first batch, `BATCH-1`, sent at 12:00:01 UTC on 2030-01-01 to `devices`. */
export function sentFleetBatch(
  devices: FleetJob['batches'][number]['devices'],
): FleetJob['batches'][number] {
  return {
    index: 0,
    state: 'sent',
    batchCommandId: 'BATCH-1',
    sentAt: '2030-01-01T12:00:01.000Z',
    attempts: 1,
    devices,
  };
}
