/** Helpers of the fleet job suites: wait for a job, read what each device holds. */
import { setTimeout as sleep } from 'node:timers/promises';
import { FleetJobSchema, type FleetJob } from '#domain/fleet-job.ts';
import type { BrowserClient } from './http-client.ts';
import type { Stack } from './stack.ts';

/** Reads the job until `done` holds (at most `tries` reads, 250 ms apart). */
export async function waitForJob(
  browser: BrowserClient,
  jobId: string,
  done: (job: FleetJob) => boolean,
  tries = 240,
): Promise<FleetJob> {
  let job: FleetJob | undefined;
  for (let i = 0; i < tries; i += 1) {
    job = FleetJobSchema.parse((await browser.get(`/api/fleet-jobs/${jobId}`)).json());
    if (done(job)) return job;
    await sleep(250);
  }
  throw new Error(`job ${jobId} did not get there: ${JSON.stringify(job?.state)}`);
}

/**
 * The commands each device holds in `[startTime, endTime)`, by device, as the vendor's own
 * history answers (the BFF answers from its read model, which is what is being checked).
 */
export async function commandsPerDevice(
  stack: Pick<Stack, 'vendorHistory'>,
  deviceIds: readonly string[],
  window: { startTime: string; endTime: string },
): Promise<Map<string, string[]>> {
  const held = new Map<string, string[]>();
  for (const deviceId of deviceIds)
    held.set(
      deviceId,
      (await stack.vendorHistory(deviceId, window)).map((c) => c.id),
    );
  return held;
}
