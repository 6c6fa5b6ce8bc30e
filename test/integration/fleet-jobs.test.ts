/**
 * Fleet jobs against the sandbox (docs/fleet-dispatch.md), on PGlite and (with TEST_DATABASE_URL)
 * PostgreSQL: a job sends every batch once and completes; upstream 503s and lost answers (a relay
 * that resets the connection after the upstream acted) still end with every device holding its
 * command exactly once or reported failed; nothing is sent after a cancel, and what was sent is
 * cancelled; the abort rule stops a job; pause holds it.
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FleetJobSchema, FleetPlanCheckSchema, type FleetJob } from '#domain/fleet-job.ts';
import { DATABASE_KINDS, type DatabaseKind } from '../support/databases.ts';
import { commandsPerDevice, waitForJob } from '../support/fleet.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack, type StackOptions } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const BATCH_ROUTE = 'eu POST /devices/commands';
const STATUS_ROUTE = 'eu GET /devices/:deviceId/commands/:commandId';
const HISTORY_ROUTE = 'eu GET /device/:deviceId/commands';
const BATCH_CANCEL_ROUTE = 'eu PUT /devices/commands/:batchCommandId/cancel';

function routeCount(stats: Record<string, unknown>, route: string): number {
  const byRoute = stats.byRoute as Record<string, number>;
  return byRoute[route] ?? 0;
}

/** The stack the fleet suites run on (see the comments on its budget). */
function fleetStackOptions(kind: DatabaseKind, clock?: BffClock): StackOptions {
  return {
    database: kind,
    relay: true,
    // Fleet jobs send many batches over the same devices within seconds, and a plan's rows may
    // share a device: these tests run the limit as an account with 30 calls per device and
    // minute would have it (the sandbox's and the BFF's budget alike). How a job is paced under
    // the vendor's 2 is not tested here yet.
    sandboxRateLimitPerMinute: 30,
    bff: {
      deviceCallsPerMinute: { eu: 30, au: 30 },
      // No case here waits for a timeout (lost answers are connection resets, faults are 503s):
      // at 3 s a loaded run answered a site binding 504 and settled a slow batch from the
      // histories, a failure of the load rather than of the case.
      upstreamTimeoutMs: 10_000,
      testing: {
        ...(clock ? { now: () => Date.now() + clock.aheadMs } : {}),
        ledgerLeaseMs: 1_500,
        circuitHalfOpenAfterMs: 200,
        fleetQueue: { pollingIntervalSeconds: 0.5, stepExpireSeconds: 10 },
        // A batch whose outcome is still being settled is tried up to 30 times: at the default
        // cap of 30 s between tries the fault test took minutes; the rule is the same at 2 s.
        fleetRetryWaitCapMs: 2_000,
      },
    },
  };
}

/**
 * The BFF's clock (sessions, tokens, a job's batch pacing), the wall clock moved on by
 * `aheadMs`: a case reaches the moment a job's next batch is due by moving it, not by waiting.
 */
interface BffClock {
  aheadMs: number;
}

/** A command for the two sites' devices, its window starting 30 minutes on the sandbox's clock. */
interface FleetCommand {
  powerControl: { targetBatteryPowerW: number };
  startTime: string;
  endTime: string;
}

/** Signs a browser in to the demo account and binds the two sites the fleet cases send to. */
async function signedInWithSites(
  stack: Stack,
): Promise<{ browser: BrowserClient; command: FleetCommand }> {
  const browser = stack.browser();
  expect((await browser.signIn(DEMO_EU)).status).toBe(200);
  for (const siteId of ['PLANT-EU-100', 'PLANT-EU-001'])
    expect((await browser.post('/api/sites', { siteId })).status).toBe(201);
  const startMs = Math.ceil((await stack.admin.nowMs()) / MINUTE_MS) * MINUTE_MS + 30 * MINUTE_MS;
  const command = {
    powerControl: { targetBatteryPowerW: 3000 },
    startTime: new Date(startMs).toISOString(),
    endTime: new Date(startMs + 60 * MINUTE_MS).toISOString(),
  };
  return { browser, command };
}

describe.each(DATABASE_KINDS)('fleet jobs on %s', { timeout: 240_000 }, (kind) => {
  let stack: Stack;
  let browser: BrowserClient;
  let command: FleetCommand;

  beforeAll(async () => {
    stack = await startStack(fleetStackOptions(kind));
  });
  afterAll(() => stack.close());
  beforeEach(async () => {
    await stack.admin.reset();
    await stack.forgetUpstream();
    await stack.admin.setFaults({});
    if (stack.relay) stack.relay.plan = () => 'pass';
    ({ browser, command } = await signedInWithSites(stack));
  });

  const create = async (body: unknown): Promise<FleetJob> => {
    const answer = await browser.post('/api/fleet-jobs', body);
    expect(answer.status, answer.text).toBe(202);
    return FleetJobSchema.parse(answer.json());
  };
  /** `POST /api/fleet-jobs` with an `Idempotency-Key`, its answer as it came. */
  const createWithKey = (json: unknown, key: string) =>
    browser.request({
      method: 'POST',
      path: '/api/fleet-jobs',
      json,
      headers: { 'idempotency-key': `"${key}"` },
    });
  const deviceIdsOf = (job: FleetJob) =>
    job.batches.flatMap((b) => b.devices.map((d) => d.deviceId));

  it('sends every batch once and completes, the two sites split into batches of at most 50', async () => {
    const job = await create({
      selection: { siteIds: ['PLANT-EU-100', 'PLANT-EU-001'] },
      command,
      rollout: { batchSize: 20, batchesPerMinute: 600 },
    });
    expect(job.progress.total).toBe(63);
    expect(job.batches.map((b) => b.devices.length)).toEqual([20, 20, 20, 3]);

    // Completed, and every device's command found by the read model's first read of it.
    const done = await waitForJob(
      browser,
      job.jobId,
      (j) => j.state === 'completed' && j.batches.every((b) => b.devices.every((d) => d.commandId)),
    );
    expect(done.batches.every((b) => b.state === 'sent' && b.batchCommandId)).toBe(true);
    // 600 batches a minute: at least 100 ms from one batch's send to the next.
    const sentMs = done.batches.map((b) => Date.parse(b.sentAt ?? ''));
    for (let i = 1; i < sentMs.length; i += 1)
      expect((sentMs[i] ?? 0) - (sentMs[i - 1] ?? 0)).toBeGreaterThanOrEqual(100);
    expect(done.progress).toMatchObject({ total: 63, sent: 63, failed: 0 });
    expect(routeCount(await stack.admin.stats(), BATCH_ROUTE)).toBe(4);
    const held = await commandsPerDevice(stack, deviceIdsOf(done), command);
    expect([...held.values()].every((ids) => ids.length === 1)).toBe(true);

    // The job page's poll reads the read model: no upstream call, however often it polls.
    const deviceCalls = async () => {
      const stats = await stack.admin.stats();
      return routeCount(stats, STATUS_ROUTE) + routeCount(stats, HISTORY_ROUTE);
    };
    const before = await deviceCalls();
    for (let i = 0; i < 5; i += 1)
      expect((await browser.get(`/api/fleet-jobs/${job.jobId}?refresh=statuses`)).status).toBe(200);
    expect((await deviceCalls()) - before).toBe(0);
  });

  it('refuses a selection outside the bound sites and names it', async () => {
    const answer = await browser.post('/api/fleet-jobs', {
      selection: { siteIds: ['PLANT-EU-002'], deviceIds: ['BAT-AU-001-A'] },
      command,
    });
    expect(answer.status).toBe(422);
    expect(answer.json<{ code: string; detail: string }>()).toMatchObject({
      code: 'fleet_selection_refused',
    });
    expect(answer.json<{ detail: string }>().detail).toContain('PLANT-EU-002');
    expect(answer.json<{ detail: string }>().detail).toContain('BAT-AU-001-A');
  });

  it('answers a create sent twice with one Idempotency-Key with the one job it made', async () => {
    const body = {
      selection: { siteIds: ['PLANT-EU-001'] },
      command,
      rollout: { batchesPerMinute: 600 },
    };
    const send = (json: unknown) => createWithKey(json, 'fleet-create-1');
    const jobCount = async () =>
      (await browser.get('/api/fleet-jobs')).json<{ jobs: unknown[] }>().jobs.length;
    const before = await jobCount();
    const [first, second] = await Promise.all([send(body), send(body)]);
    expect([first.status, second.status]).toEqual([202, 202]);
    const jobId = FleetJobSchema.parse(first.json()).jobId;
    expect(FleetJobSchema.parse(second.json()).jobId).toBe(jobId);
    await waitForJob(browser, jobId, (j) => j.state === 'completed');
    const other = await send({ ...body, rollout: { batchesPerMinute: 60 } });
    expect(other.status).toBe(422);
    expect(other.json<{ code: string }>().code).toBe('idempotency_key_reused');
    expect(await jobCount()).toBe(before + 1);
    expect(routeCount(await stack.admin.stats(), BATCH_ROUTE)).toBe(1);
  });

  it('sends a dispatch plan as one job, rows that share a command in one batch', async () => {
    const device = (n: number) => `BAT-EU-100-${String(n).padStart(2, '0')}`;
    const later = {
      powerControl: { targetBatteryPowerW: -1000 },
      startTime: command.endTime,
      endTime: new Date(Date.parse(command.endTime) + 30 * MINUTE_MS).toISOString(),
    };
    const rows = [
      ...Array.from({ length: 30 }, (_, i) => ({ line: i + 2, deviceId: device(i + 1), command })),
      ...Array.from({ length: 30 }, (_, i) => ({
        line: i + 32,
        deviceId: device(i + 31),
        command: later,
      })),
      { line: 62, deviceId: device(1), command: later },
    ];
    const refused = await browser.post('/api/fleet-plans', {
      rows: [
        ...rows,
        {
          line: 63,
          deviceId: device(2),
          command: { ...later, powerControl: { targetBatteryPowerW: 9000 } },
        },
      ],
    });
    expect(refused.status).toBe(422);
    expect(refused.json<{ detail: string }>().detail).toContain('line 63 (BAT-EU-100-02)');

    const answer = await browser.post('/api/fleet-plans', {
      rows,
      rollout: { batchesPerMinute: 600 },
    });
    expect(answer.status, answer.text).toBe(202);
    const job = FleetJobSchema.parse(answer.json());
    expect(job.batches.map((b) => [b.devices.length, b.command?.startTime])).toEqual([
      [30, command.startTime],
      [31, later.startTime],
    ]);
    // Sent counts a device once the read model found its command (the vendor's batch answer
    // names none): a few seconds after the job's last batch.
    const done = await waitForJob(
      browser,
      job.jobId,
      (j) => j.state === 'completed' && j.progress.sent + j.progress.failed === j.progress.total,
    );
    expect(done.progress).toMatchObject({ total: 61, sent: 61, failed: 0 });
    const held = await commandsPerDevice(stack, [device(1), device(2), device(31)], {
      startTime: command.startTime,
      endTime: later.endTime,
    });
    expect([
      held.get(device(1))?.length,
      held.get(device(2))?.length,
      held.get(device(31))?.length,
    ]).toEqual([2, 1, 1]);
  });

  it('checks a plan against the commands the devices hold: an overlap refused, a row sent before recognised', async () => {
    const held = { ...command, powerControl: { targetBatteryPowerW: 1000 } };
    expect((await browser.post('/api/devices/BAT-EU-100-05/commands', held)).status).toBe(202);
    const rows = [
      {
        line: 2,
        deviceId: 'BAT-EU-100-05',
        command: { ...command, powerControl: { targetBatteryPowerW: -500 } },
      },
      { line: 3, deviceId: 'BAT-EU-100-05', command: held },
      { line: 4, deviceId: 'BAT-EU-100-06', command },
    ];
    const checked = await browser.post('/api/fleet-plans/check', { rows });
    expect(checked.status, checked.text).toBe(200);
    const check = FleetPlanCheckSchema.parse(checked.json());
    expect(check.accepted.map((row) => row.line)).toEqual([4]);
    expect(check.refused).toEqual([
      {
        line: 2,
        deviceId: 'BAT-EU-100-05',
        reasons: ['its window overlaps a command of this device that is waiting to start'],
      },
      {
        line: 3,
        deviceId: 'BAT-EU-100-05',
        reasons: ['already sent: the device holds this command'],
      },
    ]);
    // The send checks the same way: nothing is made while a refused row is in it.
    const sent = await browser.post('/api/fleet-plans', { rows });
    expect(sent.status).toBe(422);
    expect(sent.json<{ detail: string }>().detail).toContain(
      'line 2 (BAT-EU-100-05): its window overlaps',
    );
    expect(routeCount(await stack.admin.stats(), BATCH_ROUTE)).toBe(0);
  });

  it('under 503s and lost answers, each device holds its command exactly once or is reported failed', async () => {
    // Every other batch POST's answer is lost after the upstream acted; 30% of all calls get a 503.
    let batchPosts = 0;
    let lostAnswers = 0;
    const relay = stack.relay;
    if (!relay) throw new Error('the stack has no relay');
    relay.plan = (method, path) => {
      if (method !== 'POST' || !path.split('?')[0]?.endsWith('/devices/commands')) return 'pass';
      batchPosts += 1;
      if (batchPosts % 2 === 0) return 'pass';
      lostAnswers += 1;
      return 'resetAfter';
    };
    // Seeded (src/sandbox/README.md, Admin API), so the job meets the same 503s each run, drawn
    // per route: under this seed the reads meet 503s and the first five batch POSTs none, so each
    // lost answer is one the upstream acted on, settled from the histories. Unseeded, a 503 on a
    // batch POST left its batch unsettled until all 25 histories read without one or its 30 tries
    // ran out: the case took 6 s one run and over a minute (four under load) the next.
    await stack.admin.setFaults({ errorRate: 0.3, errorStatus: 503, errorSeed: 'fleet job' });
    // The create reads the site list, retried twice by the BFF; under 30% 503s all three tries
    // fail about one time in 37, and the operator then sees a 503 and sends again. So does this
    // test, with the one Idempotency-Key, so a retried create that did land is not made twice.
    const body = {
      selection: { siteIds: ['PLANT-EU-100'] },
      command,
      // Never stopped by the abort rule (its default stops above 10% failed): this case is
      // about each device holding its command exactly once, whatever the faults fail.
      rollout: { batchSize: 25, batchesPerMinute: 600, abortPercent: 100 },
    };
    let answer = await createWithKey(body, 'fleet-create-under-faults');
    for (let tries = 1; answer.status === 503 && tries < 6; tries += 1) {
      await sleep(300);
      answer = await createWithKey(body, 'fleet-create-under-faults');
    }
    expect(answer.status, answer.text).toBe(202);
    const job = FleetJobSchema.parse(answer.json());
    const done = await waitForJob(browser, job.jobId, (j) => j.state === 'completed', 720);
    await stack.admin.setFaults({});
    const held = await commandsPerDevice(stack, deviceIdsOf(done), command);
    const failed = new Set(
      done.batches.flatMap((b) => b.devices.filter((d) => d.failure).map((d) => d.deviceId)),
    );
    const duplicated = [...held].filter(([, ids]) => ids.length > 1).map(([id]) => id);
    const missing = [...held]
      .filter(([id, ids]) => ids.length === 0 && !failed.has(id))
      .map(([id]) => id);
    console.info(
      `fault report ${JSON.stringify({ fault: 'fleet job under 503s and lost answers', database: kind, batchPosts, lostAnswers, duplicated: duplicated.length, missing: missing.length, reportedFailed: failed.size })}`,
    );
    expect(lostAnswers).toBeGreaterThan(0);
    expect(duplicated).toEqual([]);
    expect(missing).toEqual([]);
    // A device reported failed holds no command, unless it was told its outcome is not known.
    const failedButHeld = done.batches.flatMap((b) =>
      b.devices.filter(
        (d) =>
          d.failure &&
          !d.failure.startsWith('Whether this batch reached the device is not known') &&
          (held.get(d.deviceId)?.length ?? 0) > 0,
      ),
    );
    expect(failedButHeld).toEqual([]);
    // Every recorded command is the one the device holds.
    for (const batch of done.batches)
      for (const device of batch.devices)
        if (device.commandId) expect(held.get(device.deviceId)).toEqual([device.commandId]);
  });

  it('sends nothing after a cancel and cancels what it sent', async () => {
    const job = await create({
      selection: { siteIds: ['PLANT-EU-100'] },
      command,
      rollout: { batchSize: 10, batchesPerMinute: 2 },
    });
    const running = await waitForJob(browser, job.jobId, (j) => j.batches[0]?.state === 'sent');
    // Its 6 batches go 30 s apart: the last, at the earliest, 5 intervals after the first.
    expect(running.batches).toHaveLength(6);
    expect(Date.parse(running.sendingEndsAt ?? '')).toBe(
      Date.parse(running.batches[0]?.sentAt ?? '') + 5 * 30_000,
    );
    const cancelled = await browser.post(`/api/fleet-jobs/${job.jobId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    const sentAtCancel = routeCount(await stack.admin.stats(), BATCH_ROUTE);
    const done = await waitForJob(browser, job.jobId, (j) => j.state === 'cancelled');
    await sleep(1_500);
    const stats = await stack.admin.stats();
    expect(routeCount(stats, BATCH_ROUTE)).toBe(sentAtCancel);
    // At least one batch cancel per sent batch (the BFF may try a cancel twice when it times out).
    expect(routeCount(stats, BATCH_CANCEL_ROUTE)).toBeGreaterThanOrEqual(
      done.batches.filter((b) => b.state === 'sent').length,
    );
    expect(done.batches.filter((b) => b.state === 'skipped').length).toBeGreaterThan(0);
    expect(done.progress.cancelled.manuallyCancel).toBe(done.progress.sent);
    const again = await browser.post(`/api/fleet-jobs/${job.jobId}/resume`, {});
    expect(again.status).toBe(409);
  });

  it('holds while paused and goes on when resumed', async () => {
    const job = await create({
      selection: { siteIds: ['PLANT-EU-100'] },
      command,
      rollout: { batchSize: 20, batchesPerMinute: 3 },
    });
    await waitForJob(browser, job.jobId, (j) => j.batches[0]?.state === 'sent');
    expect((await browser.post(`/api/fleet-jobs/${job.jobId}/pause`, {})).status).toBe(200);
    const paused = await waitForJob(browser, job.jobId, (j) => j.state === 'paused');
    const sentWhilePaused = paused.progress.sent;
    expect((await browser.post(`/api/fleet-jobs/${job.jobId}/resume`, {})).status).toBe(200);
    const resumed = await waitForJob(browser, job.jobId, (j) => j.state === 'running');
    expect(resumed.progress.sent).toBeGreaterThanOrEqual(sentWhilePaused);
    expect((await browser.post(`/api/fleet-jobs/${job.jobId}/cancel`, {})).status).toBe(200);
    await waitForJob(browser, job.jobId, (j) => j.state === 'cancelled');
  });
});

/**
 * Each on a stack of its own: the suite above forgets the upstream between its cases by deleting
 * the read model's rows under a running BFF, whose kept device states (and, after the fault case,
 * the settling still under way) then still concern these same devices. These cases need each
 * device's command found by a first read on time: a clean-clone run saw the unbind case wait a
 * minute for commands never read, and the abort case's first batch's cancellations read after its
 * second batch was due.
 */
describe.each(DATABASE_KINDS)(
  'fleet jobs on a stack of their own, on %s',
  { timeout: 240_000 },
  (kind) => {
    let stack: Stack;
    let browser: BrowserClient;
    let command: FleetCommand;
    let clock: BffClock;

    beforeEach(async () => {
      clock = { aheadMs: 0 };
      stack = await startStack(fleetStackOptions(kind, clock));
      ({ browser, command } = await signedInWithSites(stack));
    });
    afterEach(() => stack.close());

    it('stops by its abort rule when devices are cancelled at once for an overlap', async () => {
      // An active command on PLANT-EU-001's devices: the job's commands there are cancelled at once.
      for (const deviceId of ['BAT-EU-001-A', 'BAT-EU-001-B', 'BAT-EU-001-C']) {
        const answer = await browser.post(`/api/devices/${deviceId}/commands`, {
          powerControl: { targetBatteryPowerW: 1000 },
          startTime: command.startTime,
          endTime: command.endTime,
        });
        expect(answer.status).toBe(202);
        // Sent, not queued: a queued one would reach the vendor after the job's batch.
        expect(answer.json(), answer.text).toHaveProperty('id');
      }
      const created = await browser.post('/api/fleet-jobs', {
        selection: { siteIds: ['PLANT-EU-001', 'PLANT-EU-100'] },
        command,
        // 2 a minute: the next batch is due 30 s after the first, reached below by moving the
        // BFF's clock once the read model has read the first batch's devices (about 5 s after its
        // answer, docs/fleet-dispatch.md), whatever the load: waiting those 30 s took each run
        // over half a minute, and at 6 a minute a loaded run sent later batches before the read.
        rollout: { batchSize: 3, batchesPerMinute: 2, abortPercent: 50 },
      });
      expect(created.status, created.text).toBe(202);
      const job = FleetJobSchema.parse(created.json());
      // Held once its first batch went (a pause holds whatever step is due next), until the read
      // model knows the first batch's devices cancelled; then the next batch is due at once.
      await waitForJob(browser, job.jobId, (j) => j.batches[0]?.state === 'sent');
      expect((await browser.post(`/api/fleet-jobs/${job.jobId}/pause`, {})).status).toBe(200);
      const learnt = await waitForJob(
        browser,
        job.jobId,
        (j) => j.progress.cancelled.timeWindowOverlap === 3,
      );
      expect(learnt.state).toBe('paused');
      clock.aheadMs += MINUTE_MS / 2;
      expect((await browser.post(`/api/fleet-jobs/${job.jobId}/resume`, {})).status).toBe(200);
      const done = await waitForJob(browser, job.jobId, (j) => j.state === 'aborted');
      expect(done.stopReason).toContain('3 of the 3 devices');
      expect(done.progress.cancelled.timeWindowOverlap).toBe(3);
      expect(done.batches.slice(1).every((b) => b.state === 'skipped')).toBe(true);
      expect(routeCount(await stack.admin.stats(), BATCH_ROUTE)).toBe(1);
    });

    it('ends the devices of a site unbound since as no longer followed: final, and no failure', async () => {
      const answer = await browser.post('/api/fleet-jobs', {
        selection: { deviceIds: ['BAT-EU-001-A', 'BAT-EU-001-B', 'BAT-EU-100-01'] },
        command,
        rollout: { batchSize: 50, batchesPerMinute: 600, abortPercent: 0 },
      });
      expect(answer.status, answer.text).toBe(202);
      const job = FleetJobSchema.parse(answer.json());
      const sent = await waitForJob(
        browser,
        job.jobId,
        (j) =>
          j.state === 'completed' && j.batches.every((b) => b.devices.every((d) => d.commandId)),
      );
      const commandOf = (deviceId: string) =>
        sent.batches.flatMap((b) => b.devices).find((d) => d.deviceId === deviceId)?.commandId;
      // One device's command is cancelled before its site is unbound: that outcome stands.
      expect(
        (
          await browser.put(
            `/api/devices/BAT-EU-001-B/commands/${commandOf('BAT-EU-001-B')}/cancel`,
          )
        ).status,
      ).toBe(200);
      expect((await browser.delete('/api/sites/PLANT-EU-001')).status).toBe(204);

      // The job page's poll brings the outcomes up to date.
      const read = FleetJobSchema.parse(
        (await browser.get(`/api/fleet-jobs/${job.jobId}?refresh=statuses`)).json(),
      );
      const devices = new Map(read.batches.flatMap((b) => b.devices).map((d) => [d.deviceId, d]));
      expect(devices.get('BAT-EU-001-A')).toMatchObject({ status: 'received', unbound: true });
      expect(devices.get('BAT-EU-001-A')?.outcomeAt).toBeDefined();
      expect(devices.get('BAT-EU-001-B')).toMatchObject({
        status: 'cancelled',
        cancelReason: 'manuallyCancel',
      });
      expect(devices.get('BAT-EU-001-B')?.unbound).toBeUndefined();
      expect(devices.get('BAT-EU-100-01')).toMatchObject({ status: 'received' });
      expect(devices.get('BAT-EU-100-01')?.unbound).toBeUndefined();
      expect(read.progress).toMatchObject({
        total: 3,
        sent: 3,
        received: 1,
        completed: 0,
        cancelled: { manuallyCancel: 1 },
        unbound: 1,
        failed: 0,
      });
      expect(read.state).toBe('completed');
    });
  },
);

/** A promise released by hand (the lib target predates `Promise.withResolvers`). */
function latch(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('fleet jobs while the queue starts (PGlite)', { timeout: 120_000 }, () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  /** A stack whose queue start stops at `beforeWorker` (after pg-boss started) until released. */
  const held = async (beforeWorker: (stopped: AbortSignal) => Promise<void>) => {
    stack = await startStack({
      fleetJobsStarting: true,
      captureLogs: true,
      bff: { testing: { fleetQueue: { pollingIntervalSeconds: 0.5, beforeWorker } } },
    });
    const browser = stack.browser();
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
    return { stack, browser };
  };
  const jobBody = async (running: Stack) => {
    const startMs =
      Math.ceil((await running.admin.nowMs()) / MINUTE_MS) * MINUTE_MS + 30 * MINUTE_MS;
    return {
      selection: { siteIds: ['PLANT-EU-001'] },
      command: {
        powerControl: { targetBatteryPowerW: 1000 },
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(startMs + 60 * MINUTE_MS).toISOString(),
      },
      rollout: { batchSize: 50, batchesPerMinute: 600 },
    };
  };
  const errorLines = (running: Stack) =>
    running.logLines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

  it('refuses creating a job with 503 fleet_jobs_starting and Retry-After until the queue runs, lists jobs meanwhile, then runs them', async () => {
    const gate = latch();
    const { stack: running, browser } = await held(() => gate.promise);
    const body = await jobBody(running);

    const early = await browser.post('/api/fleet-jobs', body);
    expect(early.status, early.text).toBe(503);
    expect(early.json<{ code: string; detail: string }>()).toMatchObject({
      code: 'fleet_jobs_starting',
      detail: expect.stringContaining('Try again in a few seconds'),
    });
    expect(Number(early.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await browser.get('/api/fleet-jobs')).json()).toEqual({ jobs: [] });
    const readyz = await browser.get('/readyz');
    expect(readyz.status).toBe(200);
    expect(readyz.json()).toMatchObject({ status: 'ready', fleetJobs: 'starting' });

    gate.resolve();
    await running.bff.fleetJobsStarted();
    expect((await browser.get('/readyz')).json()).toMatchObject({ fleetJobs: 'ready' });
    const created = await browser.post('/api/fleet-jobs', body);
    expect(created.status, created.text).toBe(202);
    const { jobId } = FleetJobSchema.parse(created.json());
    const done = await waitForJob(browser, jobId, (j) => j.state === 'completed');
    expect(done.progress.failed).toBe(0);
    expect(errorLines(running)).toEqual([]);
  });

  it('logs a start that failed, says so to the operator, and tries again until the queue runs', async () => {
    const gate = latch();
    let tries = 0;
    const { stack: running, browser } = await held(async () => {
      tries += 1;
      if (tries === 1) throw new Error('the database refused the queue');
      await gate.promise;
    });
    await vi.waitFor(() => expect(errorLines(running)).toHaveLength(1), { timeout: 30_000 });
    expect(errorLines(running)[0]).toContain('the database refused the queue');

    const refused = await browser.post('/api/fleet-jobs', await jobBody(running));
    expect(refused.status).toBe(503);
    expect(refused.json<{ code: string; detail: string }>()).toMatchObject({
      code: 'fleet_jobs_starting',
      detail: expect.stringContaining('tell your administrator'),
    });

    gate.resolve();
    await running.bff.fleetJobsStarted();
    expect(tries).toBe(2);
    const created = await browser.post('/api/fleet-jobs', await jobBody(running));
    expect(created.status, created.text).toBe(202);
  });

  it('closes cleanly while the queue starts: the try under way ends and what pg-boss started is stopped', async () => {
    const reached = latch();
    // The try goes on only once the close has begun, as a slow start would.
    const { stack: running } = await held(async (stopped) => {
      reached.resolve();
      await once(stopped, 'abort');
    });
    await reached.promise;

    await running.bff.close();
    await running.bff.fleetJobsStarted();

    const rows = async (query: string) =>
      ((await running.database.db.execute(query)) as unknown as { rows: { n: number }[] }).rows[0]
        ?.n;
    expect(
      await rows('select count(*)::int as n from bff_queue.instance where stopped_on is null'),
    ).toBe(0);
    expect(
      await rows(`select count(*)::int as n from bff_queue.queue where name = 'fleet-job-step'`),
    ).toBe(0);
    expect(errorLines(running)).toEqual([]);
  });
});
