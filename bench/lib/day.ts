/**
 * A day's work on one `npm start`, built through the product API and the sandbox admin API so
 * `start.rss_mb_day` can restart on it: the `large` fixture's sites bound (the demo fixture's in
 * the smoke), a few hundred device commands across devices, batches and fleet jobs, and the
 * sandbox clock moved through the day so the commands ran and their history exists. Deterministic:
 * the same devices, windows and counts every run (the windows are placed from the sandbox clock).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FleetJobSchema, isFinalJobState } from '#domain/fleet-job.ts';
import { bffCall, sandboxAdmin, signIn } from './http.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** What a day's work holds: the sites bound and how many of each change. */
export interface DaySize {
  siteIds: string[];
  /** Devices that get one device command each. */
  commandDevices: string[];
  /** Batches of devices, each sent as one `POST /api/batches`. */
  batches: string[][];
  /** Fleet jobs, each over these sites. */
  jobs: string[][];
  /** Hours the sandbox clock is moved through, an hour at a time. */
  hours: number;
}

const large = (site: number, device: number) => `BAT-EU-${site}-${String(device).padStart(3, '0')}`;
const leipzig = (device: number) => `BAT-EU-100-${String(device).padStart(2, '0')}`;
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/**
 * The full day (fixture `large`): the 23 sites bound (1,063 devices), 300 device commands on the
 * devices of PLANT-EU-201..206, 4 batches of 50 on PLANT-EU-207..210, 3 fleet jobs of 100 devices
 * on PLANT-EU-211..216, 14 hours on the sandbox clock. The smoke only proves the path (CI's time):
 * the demo fixture's Berlin and Leipzig, 5 commands, 1 batch of 5, 1 job of 3 devices, 2 hours.
 */
export function daySize(smoke: boolean): DaySize {
  if (smoke)
    return {
      siteIds: ['PLANT-EU-001', 'PLANT-EU-100'],
      commandDevices: range(1, 5).map(leipzig),
      batches: [range(6, 5).map(leipzig)],
      jobs: [['PLANT-EU-001']],
      hours: 2,
    };
  return {
    siteIds: [
      'PLANT-EU-001',
      'PLANT-EU-002',
      'PLANT-EU-100',
      ...range(201, 20)
        .map(String)
        .map((n) => `PLANT-EU-${n}`),
    ],
    commandDevices: range(201, 6).flatMap((site) => range(1, 50).map((d) => large(site, d))),
    batches: range(207, 4).map((site) => range(1, 50).map((d) => large(site, d))),
    jobs: [
      ['PLANT-EU-211', 'PLANT-EU-212'],
      ['PLANT-EU-213', 'PLANT-EU-214'],
      ['PLANT-EU-215', 'PLANT-EU-216'],
    ],
    hours: 14,
  };
}

/** A device command of half an hour from `startMs` (epoch ms). */
const command = (startMs: number, powerW: number) => ({
  powerControl: { targetBatteryPowerW: powerW },
  startTime: new Date(startMs).toISOString(),
  endTime: new Date(startMs + HOUR_MS / 2).toISOString(),
});

/** How many of each change the day made, for the figure's note. */
export interface DayDone {
  sites: number;
  commands: number;
  batches: number;
  jobs: number;
  hours: number;
  buildMs: number;
  /** Device commands moved an hour or more on because a window overlapped. */
  stepped: number;
}

/**
 * Builds `size` on the `npm start` at `origin` (its sandbox's admin API at `sandboxOrigin`): signs
 * in as the demo EU client, binds the sites, sends the device commands (windows spread over the
 * hours ahead, so some run each hour), the batches and the fleet jobs (waits until each ended),
 * then moves the sandbox clock an hour at a time, pausing after each move so the BFF's read model
 * follows the commands as they start and end. Sent (200/201) and queued (202) changes both count:
 * the vendor's limit of 2 calls per device per minute stays on.
 *
 * @throws Error naming the call when one is answered otherwise.
 */
export async function buildDay(
  origin: string,
  sandboxOrigin: string,
  size: DaySize,
  log: (line: string) => void,
): Promise<DayDone> {
  const startedAt = performance.now();
  // Where the build's time goes, for the log: each phase's seconds.
  const phases: string[] = [];
  let phaseAt = startedAt;
  const phase = (name: string) => {
    phases.push(`${name} ${Math.round((performance.now() - phaseAt) / 1000)} s`);
    phaseAt = performance.now();
  };
  const session = await signIn(origin);
  const admin = sandboxAdmin(sandboxOrigin);
  for (const siteId of size.siteIds)
    await bffCall(session, 'POST', '/api/sites', { siteId }, 200, 201);
  phase('binding');
  const nowMs = await admin.nowMs();
  // Windows from the next whole hour on, one device in `hours` per hour, so every hour of the
  // day has commands that start, run and complete.
  const baseMs = Math.ceil(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS;
  const hours = Math.max(1, size.hours - 2);
  let stepped = 0;
  for (const [i, deviceId] of size.commandDevices.entries())
    // The fixture's own commands of the days ahead may hold the slot: an hour later on 409.
    for (let attempt = 0; ; attempt++) {
      try {
        await bffCall(
          session,
          'POST',
          `/api/devices/${deviceId}/commands`,
          command(baseMs + ((i + attempt) % hours) * HOUR_MS, 1000 + 100 * (i % 10)),
          200,
          201,
          202,
        );
        break;
      } catch (error) {
        if (attempt >= hours || !String(error).includes('HTTP 409')) throw error;
        stepped++;
      }
    }
  phase('device commands');
  for (const [i, devices] of size.batches.entries())
    await bffCall(
      session,
      'POST',
      '/api/batches',
      { devices, command: command(baseMs + (i % hours) * HOUR_MS + HOUR_MS / 2, 1500) },
      202,
    );
  phase('batches');
  for (const [i, siteIds] of size.jobs.entries()) {
    const until = Date.now() + 120_000;
    const create = () =>
      bffCall(
        session,
        'POST',
        '/api/fleet-jobs',
        {
          selection: { siteIds },
          command: command(baseMs + ((i + 1) % hours) * HOUR_MS + HOUR_MS / 2, 2000),
          rollout: { batchSize: 50, batchesPerMinute: 600, abortPercent: 100 },
        },
        202,
      );
    // The job queue starts a moment after the server is ready (503 `fleet_jobs_starting`).
    let created: unknown;
    for (;;) {
      try {
        created = await create();
        break;
      } catch (error) {
        if (Date.now() > until || !String(error).includes('fleet_jobs_starting')) throw error;
        await sleep(500);
      }
    }
    let job = FleetJobSchema.parse(created);
    while (!isFinalJobState(job.state) && Date.now() < until) {
      await sleep(250);
      job = FleetJobSchema.parse(
        await bffCall(session, 'GET', `/api/fleet-jobs/${job.jobId}`, undefined, 200),
      );
    }
    if (job.state !== 'completed')
      throw new Error(`fleet job over ${siteIds.join(', ')} ended ${job.state}`);
  }
  phase('fleet jobs');
  for (let hour = 0; hour < size.hours; hour++) {
    await admin.advanceClock(HOUR_MS);
    // The read model reads the devices whose commands started or ended; a pause lets it follow.
    await sleep(1_000);
  }
  phase('clock');
  const done: DayDone = {
    sites: size.siteIds.length,
    commands: size.commandDevices.length,
    batches: size.batches.length,
    jobs: size.jobs.length,
    hours: size.hours,
    buildMs: performance.now() - startedAt,
    stepped,
  };
  log(
    `  a day built: ${done.sites} sites, ${done.commands} commands, ${done.batches} batches, ${done.jobs} fleet jobs (${done.stepped} commands moved on past an overlap), ${done.hours} h on the sandbox clock, ${Math.round(done.buildMs / 1000)} s (${phases.join(', ')})`,
  );
  return done;
}
