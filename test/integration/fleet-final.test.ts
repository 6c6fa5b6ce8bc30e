/**
 * A fleet job's device outcomes reach the end by themselves under the vendor's limit of 2 calls
 * per device and minute (docs/fleet-dispatch.md, Progress; docs/decisions/007-device-call-budget.md):
 * once the window has passed on the vendor's clock, the read model's reads of the devices make
 * every device's command completed in the job as its page reads it, none left received. An
 * operator saw a 63-device job stop at "Received 59, Completed 4" after its window.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FleetJobSchema, type FleetJob } from '#domain/fleet-job.ts';
import { waitForJob } from '../support/fleet.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const STEP_MS = 20_000;
/** PLANT-EU-001's 3 devices and PLANT-EU-100's 60: the size at which an operator met it. */
const SITES = ['PLANT-EU-001', 'PLANT-EU-100'];
const DEVICES = 63;

let stack: Stack;

beforeAll(async () => {
  // The vendor's 2 calls per device and minute, on the sandbox and in the BFF's budget (the
  // stack's defaults); the reads look for due devices only when the test says.
  stack = await startStack({
    followSandboxClock: true,
    bff: {
      testing: {
        readModelTickMs: 0,
        fleetQueue: { pollingIntervalSeconds: 0.5, stepExpireSeconds: 10 },
      },
    },
  });
});
afterAll(() => stack?.close());

const statusesOf = (job: FleetJob) => {
  const counts: Record<string, number> = {};
  for (const batch of job.batches)
    for (const device of batch.devices) {
      const status = device.status ?? (device.commandId ? 'unknown' : 'notFound');
      counts[status] = (counts[status] ?? 0) + 1;
    }
  return counts;
};

it(
  `a fleet job of ${DEVICES} devices: every device completed once the window has passed`,
  { timeout: 240_000 },
  async () => {
    await stack.admin.reset();
    const browser = stack.browser();
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    for (const siteId of SITES)
      expect((await browser.post('/api/sites', { siteId })).status).toBe(201);
    const reads = stack.bff.readModel?.reads;
    if (!reads) throw new Error('the stack runs with a database: the read model is there');

    const startMs = Math.ceil((await stack.admin.nowMs()) / MINUTE_MS) * MINUTE_MS + 3 * MINUTE_MS;
    const endMs = startMs + 5 * MINUTE_MS;
    const created = await browser.post('/api/fleet-jobs', {
      selection: { siteIds: SITES },
      command: {
        powerControl: { targetBatteryPowerW: -1500 },
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(endMs).toISOString(),
      },
      rollout: { batchSize: 50, batchesPerMinute: 120, abortPercent: 100 },
    });
    expect(created.status, created.text).toBe(202);
    const { jobId } = FleetJobSchema.parse(created.json());
    await waitForJob(browser, jobId, (job) => job.state === 'completed');

    // The vendor's clock moves in steps to 10 minutes past the window's end; after each the
    // devices due a read are read (within their budget). Nothing reads the job meanwhile.
    for (let atMs = await stack.admin.nowMs(); atMs < endMs + 10 * MINUTE_MS; atMs += STEP_MS) {
      await stack.admin.advanceClock(STEP_MS);
      await reads.runDue();
    }
    const job = FleetJobSchema.parse(
      (await browser.get(`/api/fleet-jobs/${jobId}?refresh=statuses`)).json(),
    );
    expect(statusesOf(job)).toEqual({ completed: DEVICES });
    expect(job.progress.completed).toBe(DEVICES);
  },
);
