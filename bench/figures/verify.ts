/**
 * Verification figures (docs/architecture.md, Budgets: verification of a fleet's window): the
 * sandbox (fixture `fleet`, its seeded behaviours) and the BFF in this process, the BFF's real
 * read model, budget, verification queue and fleet snapshot on PostgreSQL when `TEST_DATABASE_URL`
 * is set (as CI sets it), else on PGlite (see {@link verifyDatabaseKindOf}), the vendor's limit of 2
 * calls per device per minute on both sides. One two-hour discharge on every device of
 * `devices` (50 per site, a batch per site, sent through the BFF), the upstream clock moved to
 * the window's end and then left to run with the wall clock, so the time to each verdict on it
 * is the BFF's real work and waits. A reference on a tenth of the devices runs the same way in
 * the same run.
 */
import type { AddressInfo } from 'node:net';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { isQueuedAnswer } from '#domain/queued-change.ts';
import { BatchSubmissionResponseSchema } from '#domain/batch.ts';
import { eventPowerCurve, eventVerdictsOf } from '#domain/fleet-power.ts';
import type { Account } from '#domain/account.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import type { Verdict } from '#domain/verdict.ts';
import { buildSandboxApp, type SandboxApp } from '#sandbox/app.ts';
import { FLEET_DEVICES_PER_SITE } from '#sandbox/fixtures/fleet-fixture.ts';
import { fleetBehaviour, type Behaviour } from '#sandbox/model/behaviours.ts';
import { buildServerApp } from '#server/app.ts';
import { VENDOR_API_BASE_PATH } from '#server/upstream/upstream-caller.ts';
import { createTestDatabase, type DatabaseKind } from '#test/support/databases.ts';
import { BrowserClient } from '#test/support/http-client.ts';
import type { BenchOptions } from '../lib/context.ts';
import { judged, reported, type BenchResult, type Figure } from '../lib/results.ts';
import { percentile } from '../lib/stats.ts';
import { classScores, curveAgainstTruth } from '../lib/verdict-scores.ts';

export const VERIFY_FIGURES = {
  verdictP99: { name: 'verify.verdict_p99_after_window_end_min', unit: 'min', budget: 10 },
  precision: { name: 'verify.class_precision_min_pct', unit: '%', budget: 95, kind: 'min' },
  recall: { name: 'verify.class_recall_min_pct', unit: '%', budget: 95, kind: 'min' },
  telemetryReads: { name: 'verify.telemetry_reads_per_device_max', unit: 'calls', budget: 1 },
  otherReads: { name: 'verify.configuration_alarm_reads', unit: 'calls', budget: null },
  controlsDelayed: { name: 'verify.control_calls_delayed_by_telemetry', unit: 'calls', budget: 0 },
  curve: { name: 'verify.curve_offset_periods_max', unit: 'periods', budget: 1 },
  snapshotCalls: { name: 'verify.snapshot_calls', unit: 'calls', budget: 100 },
} satisfies Record<string, Figure>;

const MINUTE_MS = 60_000;
const WINDOW_MS = 120 * MINUTE_MS;
const TARGET_W = 3_000;
const SAMPLING_PERIOD_MS = MINUTE_MS;
/** Upstream time after the window's end the run waits for verdicts before it stops looking. */
const GIVE_UP_AFTER_END_MS = 15 * MINUTE_MS;
const HISTORY_ROUTE = `/eu${VENDOR_API_BASE_PATH}/device/:deviceId/commands`;
const DEMO_EU = { region: 'eu', clientId: 'demo-eu', clientSecret: 'demo-eu-secret' } as const;
const ACCOUNT = { region: 'eu', clientId: 'demo-eu' } as unknown as Account;
/** Full run and smoke sizes: a fleet of 10,000 devices; a smoke that proves the path. */
const DEVICES = { full: 10_000, smoke: 100 };

/**
 * The devices of this run: `BENCH_VERIFY_DEVICES` (50 to 10,000) when set, for a machine where
 * the full size takes too long; the figures' notes say the size measured.
 */
export function verifyDevicesOf(smoke: boolean, env: NodeJS.ProcessEnv = process.env): number {
  const asked = env.BENCH_VERIFY_DEVICES;
  if (asked === undefined || asked === '') return smoke ? DEVICES.smoke : DEVICES.full;
  const devices = Number(asked);
  if (!Number.isInteger(devices) || devices < 50 || devices > DEVICES.full)
    throw new Error(`BENCH_VERIFY_DEVICES must be a whole number from 50 to ${DEVICES.full}`);
  return devices;
}

/**
 * The BFF's database in this group: PostgreSQL when `TEST_DATABASE_URL` is set, as a deployment
 * with a fleet this size runs; else the embedded PGlite, which runs its SQL on this process's one
 * thread beside the sandbox and the BFF (EVIDENCE.md: about three quarters of the busy time).
 */
export function verifyDatabaseKindOf(env: NodeJS.ProcessEnv = process.env): DatabaseKind {
  return env.TEST_DATABASE_URL ? 'postgres' : 'pglite';
}

/** A vendor call as the sandbox answered it, on its clock. */
interface VendorCall {
  route: string;
  deviceId: string | undefined;
  status: number;
  atMs: number;
}

/** A control call sent through the BFF while verification ran. */
interface ControlCall {
  deviceId: string;
  askedAtMs: number;
  answeredAtMs: number;
  status: number;
  queued?: { reason: string; goesAt: string } | undefined;
}

/** What one run of `devices` found. */
export interface VerifyRun {
  devices: number;
  databaseKind: DatabaseKind;
  windowEndMs: number;
  /** Upstream ms from the window's end to each device's verdict; missing ones are absent. */
  afterEndMs: number[];
  verdictOf: Map<string, Verdict>;
  behaviourOf: Map<string, Behaviour>;
  historicalReads: Map<string, number>;
  /** Upstream ms from the window's end to the read model's first read of each device after it. */
  readModelAfterEndMs: number[];
  /** Upstream ms from the window's end to when the run stopped looking. */
  lookedForMs: number;
  configurationReads: number;
  alarmReads: number;
  controls: ControlCall[];
  controlsDelayedByTelemetry: ControlCall[];
  curveOffsetPeriods: number;
  curveMaxErrorW: number;
  curvePeakW: number;
  snapshot: {
    /** Calls of the first snapshot (one pass over every due device). */
    calls: number;
    /** Calls until every device had a sample, the first snapshot's included. */
    callsToAll: number;
    devices: number;
    /** Devices with a sample after the first snapshot, and at the end. */
    sampledFirst: number;
    sampled: number;
    deferred: number;
    passes: number;
  };
  warnings: Map<string, number>;
  wallMs: { setUp: number; verification: number; total: number };
  queue: { jobs: number; outcomes: Record<string, number> };
}

const originOf = (app: FastifyInstance) =>
  `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

/** `BAT-EU-F001-01`..: the first `devices` of the fleet, 50 per site, with their serial. */
function fleetDevices(devices: number): { siteIds: string[]; byBatch: string[][] } {
  const sites = Math.ceil(devices / FLEET_DEVICES_PER_SITE);
  const siteIds: string[] = [];
  const byBatch: string[][] = [];
  for (let s = 0; s < sites; s += 1) {
    const number = String(s + 1).padStart(3, '0');
    siteIds.push(`PLANT-EU-F${number}`);
    const count = Math.min(FLEET_DEVICES_PER_SITE, devices - s * FLEET_DEVICES_PER_SITE);
    byBatch.push(
      Array.from(
        { length: count },
        (_, d) => `BAT-EU-F${number}-${String(d + 1).padStart(2, '0')}`,
      ),
    );
  }
  return { siteIds, byBatch };
}

const serialOf = (deviceId: string) => {
  const match = /^BAT-EU-F(\d{3})-(\d{2})$/.exec(deviceId);
  if (!match) throw new Error(`not a fleet device: ${deviceId}`);
  return (Number(match[1]) - 1) * FLEET_DEVICES_PER_SITE + Number(match[2]) - 1;
};

/**
 * `BENCH_VERIFY_CPU_PROFILE=<file>`: a V8 CPU profile of this process (sandbox and BFF alike)
 * from the window's end to the last verdict, for `bench/profile-summary.ts`.
 */
async function startProfile(
  file: string | undefined,
): Promise<{ stop: () => Promise<void> } | undefined> {
  if (!file) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await session.post('Profiler.stop');
      await mkdir(path.dirname(path.resolve(file)), { recursive: true });
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** Polls `probe` every 250 ms (real time), calling `idle` between polls, until it answers. */
async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  idle?: () => Promise<unknown>,
): Promise<T> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (performance.now() > until) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await idle?.();
  }
}

type Rows<T> = { rows: T[] };

/**
 * One run: starts the sandbox and the BFF in this process, binds the sites, sends one batch per
 * site, moves the upstream clock to the window's end and measures until every device has its
 * verdict (or {@link GIVE_UP_AFTER_END_MS} of upstream time passed), then takes a fleet snapshot.
 */
export async function runVerification(
  devices: number,
  log: (line: string) => void,
): Promise<VerifyRun> {
  const startedAt = performance.now();
  const databaseKind = verifyDatabaseKindOf();
  const database = await createTestDatabase(databaseKind);
  const handle = await database.open();
  const sandbox: SandboxApp = await buildSandboxApp({
    dataDir: database.dataDir,
    fixture: 'fleet',
    adminEnabled: true,
    inMemory: true,
    deviceRateLimitPerMinute: 2,
  });
  const calls: VendorCall[] = [];
  const warnings = new Map<string, number>();
  let onTelemetryRead: ((deviceId: string) => void) | undefined;
  sandbox.addHook('onResponse', async (request, reply) => {
    const deviceId = (request.params as { deviceId?: string } | undefined)?.deviceId;
    const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
    calls.push({ route, deviceId, status: reply.statusCode, atMs: sandbox.sandboxNow() });
    if (deviceId && reply.statusCode === 200 && route.endsWith('/historicalData'))
      onTelemetryRead?.(deviceId);
  });
  await sandbox.listen({ host: '127.0.0.1', port: 0 });
  const sandboxUrl = originOf(sandbox);
  const upstream = (region: string) => ({
    authUrl: `${sandboxUrl}/${region}`,
    baseUrl: `${sandboxUrl}/${region}${VENDOR_API_BASE_PATH}`,
  });
  const bff = await buildServerApp({
    upstreams: { eu: upstream('eu'), au: upstream('au') },
    database: handle,
    dataDir: database.dataDir,
    upstreamClock: () => sandbox.sandboxNow(),
    // Read by the bench when it asks (runDue), at a quiet moment: its figure is its calls.
    fleetSnapshotEveryMs: 5 * MINUTE_MS,
    logger: {
      level: 'warn',
      stream: {
        write: (line: string) => {
          const { msg, err, reason, code } = JSON.parse(line) as {
            msg: string;
            err?: { message?: string };
            reason?: string;
            code?: string;
          };
          const key = `${msg} (${err?.message ?? reason ?? code ?? ''})`.slice(0, 300);
          warnings.set(key, (warnings.get(key) ?? 0) + 1);
        },
      },
    },
    testing: { fleetSnapshotTickMs: 0 },
  } as Parameters<typeof buildServerApp>[0]);
  await bff.listen({ host: '127.0.0.1', port: 0 });
  const admin = (path: string, json: unknown) =>
    fetch(`${sandboxUrl}/_sandbox${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(json),
    }).then(async (answer) => {
      if (!answer.ok) throw new Error(`sandbox ${path}: ${answer.status}`);
      return (await answer.json()) as { now: string };
    });
  const moveClockTo = (atMs: number) => admin('/clock', { now: new Date(atMs).toISOString() });
  const at = (ms: number) => `'${new Date(ms).toISOString()}'::timestamptz`;
  /**
   * The upstream clock runs with the wall clock while the BFF works, and jumps over its waits:
   * when nothing is due now (no verification, no read of the read model), to the next moment
   * something is, never past `untilMs`. @returns whether it jumped.
   */
  const skipIdle = async (untilMs: number): Promise<boolean> => {
    const nowMs = sandbox.sandboxNow();
    const { rows } = (await handle.db.execute(`
      select
        (select count(*)::int from bff.command_verdicts where due_at <= ${at(nowMs)}) +
        (select count(*)::int from bff.device_read_state where bound and next_read_at <= ${at(nowMs)}) as due,
        least(
          (select min(due_at) from bff.command_verdicts where due_at > ${at(nowMs)}),
          (select min(next_read_at) from bff.device_read_state where bound and next_read_at > ${at(nowMs)})
        ) as next`)) as unknown as Rows<{ due: number; next: string | Date | null }>;
    const row = rows[0];
    if (!row || row.due > 0 || row.next === null) return false;
    const nextMs = Math.min(new Date(row.next).getTime(), untilMs);
    if (nextMs <= nowMs) return false;
    await moveClockTo(nextMs);
    return true;
  };

  log(`    sandbox and BFF started in ${Math.round(performance.now() - startedAt)} ms`);
  let progressAt = performance.now();
  /** A line a minute (real time) while the run waits, so a long run shows where it is. */
  const progress = (what: string) => {
    if (performance.now() - progressAt < 60_000) return;
    progressAt = performance.now();
    log(`    ${what} after ${Math.round((progressAt - startedAt) / 1000)} s`);
  };
  try {
    const browser = new BrowserClient(originOf(bff));
    const signedIn = await browser.signIn(DEMO_EU);
    if (signedIn.status !== 200) throw new Error(`sign-in: ${signedIn.status}`);
    const { siteIds, byBatch } = fleetDevices(devices);
    const deviceIds = byBatch.flat();
    for (const siteId of siteIds) {
      const bound = await browser.post('/api/sites', { siteId });
      if (bound.status !== 201 && bound.status !== 200)
        throw new Error(`binding ${siteId}: ${bound.status} ${bound.text.slice(0, 200)}`);
    }
    // The read model reads each bound device once (its backfill): one call each.
    await waitFor('the backfill reads of the bound devices', 60 * MINUTE_MS, async () => {
      const { rows } = (await handle.db.execute(
        `select count(*)::int as n from bff.device_read_state where bound and read_at is not null`,
      )) as unknown as Rows<{ n: number }>;
      progress(`${rows[0]?.n ?? 0} devices read`);
      return (rows[0]?.n ?? 0) >= devices ? true : undefined;
    });
    log(`    ${devices} devices bound and read in ${Math.round(performance.now() - startedAt)} ms`);

    const nowMs = sandbox.sandboxNow();
    const windowStartMs = Math.ceil((nowMs + 15 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
    const windowEndMs = windowStartMs + WINDOW_MS;
    const command = {
      powerControl: { targetBatteryPowerW: TARGET_W },
      startTime: new Date(windowStartMs).toISOString(),
      endTime: new Date(windowEndMs).toISOString(),
    };
    const batchIds: string[] = [];
    const sendingAt = performance.now();
    // One at a time: ten at once kept the sandbox, in this process, from answering within the
    // BFF's upstream timeout (a 504 of unknown outcome) on a loaded machine.
    const toSend = [...byBatch];
    const sender = async () => {
      for (let batch = toSend.shift(); batch; batch = toSend.shift()) {
        const sent = await browser.post('/api/batches', { devices: batch, command });
        if (sent.status !== 202)
          throw new Error(`batch of ${batch[0]}: ${sent.status} ${sent.text.slice(0, 200)}`);
        const answer = BatchSubmissionResponseSchema.parse(sent.json());
        if (answer.batchCommandId) batchIds.push(answer.batchCommandId);
      }
    };
    await sender();
    log(
      `    ${byBatch.length} batches answered in ${Math.round(performance.now() - sendingAt)} ms`,
    );
    // The batches' confirming reads go once each device has a call to spare: a minute on.
    await waitFor(
      'every command planned for verification',
      60 * MINUTE_MS,
      async () => {
        const { rows } = (await handle.db.execute(
          `select count(*)::int as n from bff.command_verdicts where window_end = ${at(windowEndMs)}`,
        )) as unknown as Rows<{ n: number }>;
        progress(`${rows[0]?.n ?? 0} verifications planned`);
        return (rows[0]?.n ?? 0) >= devices ? true : undefined;
      },
      () => skipIdle(windowStartMs - 5 * MINUTE_MS),
    );
    const setUpMs = performance.now() - startedAt;
    log(`    ${batchIds.length} batches sent and known to the BFF after ${Math.round(setUpMs)} ms`);

    // Control calls while verification runs: a new command on a sampled device the moment its
    // telemetry read is answered, when that read's slot is the newest of its minute.
    const controls: ControlCall[] = [];
    // One in 100 devices, at least 5.
    const every = Math.max(1, Math.floor(devices / Math.max(5, devices / 100)));
    const sampled = new Set(deviceIds.filter((_, i) => i % every === every - 1));
    const pending: Promise<void>[] = [];
    const controlBrowser = browser;
    const later = {
      powerControl: { targetBatteryPowerW: 1_000 },
      startTime: new Date(windowEndMs + 24 * 60 * MINUTE_MS).toISOString(),
      endTime: new Date(windowEndMs + 25 * 60 * MINUTE_MS).toISOString(),
    };
    onTelemetryRead = (deviceId) => {
      if (!sampled.delete(deviceId)) return;
      const askedAtMs = sandbox.sandboxNow();
      pending.push(
        controlBrowser.post(`/api/devices/${deviceId}/commands`, later).then((answer) => {
          const body = answer.status === 202 ? answer.json() : undefined;
          controls.push({
            deviceId,
            askedAtMs,
            answeredAtMs: sandbox.sandboxNow(),
            status: answer.status,
            queued: isQueuedAnswer(body) ? body.queued : undefined,
          });
        }),
      );
    };

    const verifyingAt = performance.now();
    const profiler = await startProfile(process.env.BENCH_VERIFY_CPU_PROFILE);
    await moveClockTo(windowEndMs);
    const queue = bff.verdicts.queue;
    await waitFor(
      'a verdict for every device',
      60 * MINUTE_MS,
      async () => {
        const { verified } = await bff.verdicts.verification.store.countOf(ACCOUNT);
        if (verified >= devices) return true;
        progress(
          `${verified} verdicts, ${Math.round((sandbox.sandboxNow() - windowEndMs) / 1000)} s (upstream) after the window's end,`,
        );
        return sandbox.sandboxNow() > windowEndMs + GIVE_UP_AFTER_END_MS ? true : undefined;
      },
      () => skipIdle(windowEndMs + GIVE_UP_AFTER_END_MS + 1),
    );
    const verificationMs = performance.now() - verifyingAt;
    await profiler?.stop();
    const lookedForMs = sandbox.sandboxNow() - windowEndMs;
    await Promise.all(pending);

    const { rows } = (await handle.db.execute(
      `select device_id, verdict->>'verdict' as verdict, computed_at from bff.command_verdicts where window_end = '${new Date(windowEndMs).toISOString()}' and verdict is not null`,
    )) as unknown as Rows<{ device_id: string; verdict: Verdict; computed_at: string | Date }>;
    const verdictOf = new Map(rows.map((row) => [row.device_id, row.verdict]));
    const afterEndMs = rows.map((row) => new Date(row.computed_at).getTime() - windowEndMs);
    const behaviourOf = new Map(deviceIds.map((id) => [id, fleetBehaviour(serialOf(id))]));

    const afterEnd = calls.filter((call) => call.atMs >= windowEndMs);
    const historicalReads = new Map<string, number>();
    for (const call of afterEnd)
      if (call.deviceId && call.route.endsWith('/historicalData') && call.status === 200)
        historicalReads.set(call.deviceId, (historicalReads.get(call.deviceId) ?? 0) + 1);
    const readModelRead = new Map<string, number>();
    for (const call of afterEnd)
      if (
        call.deviceId &&
        call.route === `GET ${HISTORY_ROUTE}` &&
        !readModelRead.has(call.deviceId)
      )
        readModelRead.set(call.deviceId, call.atMs - windowEndMs);
    const count = (suffix: string) =>
      afterEnd.filter((call) => call.route.endsWith(suffix) && call.status === 200).length;

    // A control call was delayed by telemetry when it was queued while a telemetry read of its
    // device was counted by the vendor within the minute before it was asked.
    const telemetryRoutes = ['/historicalData', '/configuration', '/alarms', '/latestData/query'];
    const controlsDelayedByTelemetry = controls.filter(
      (control) =>
        control.queued !== undefined &&
        calls.some(
          (call) =>
            call.deviceId === control.deviceId &&
            telemetryRoutes.some((route) => call.route.endsWith(route)) &&
            call.atMs > control.askedAtMs - MINUTE_MS &&
            call.atMs <= control.askedAtMs,
        ),
    );

    // The event's curve as the BFF answers it, against the sandbox's own samples.
    const stored = await bff.verdicts.verification.store.verdictsOfBatches(ACCOUNT, batchIds);
    const event = eventVerdictsOf(stored.records, stored.knownCommands);
    const truth = eventPowerCurve(
      deviceIds.map((deviceId) => ({
        samples: sandbox
          .sandboxSamples(deviceId, windowStartMs, windowEndMs)
          .map((sample) => ({ atMs: sample.atMs, batteryPowerW: sample.batteryPowerW })) as never,
        commandedW: TARGET_W,
        fromMs: windowStartMs,
        toMs: windowEndMs,
      })),
      windowStartMs,
      windowEndMs,
      SAMPLING_PERIOD_MS,
    );
    const curve = curveAgainstTruth(event.curve, truth, SAMPLING_PERIOD_MS);

    const snapshot = await measureSnapshot(bff, handle, sandbox, calls, devices, moveClockTo);
    return {
      devices,
      databaseKind,
      windowEndMs,
      afterEndMs,
      verdictOf,
      behaviourOf,
      historicalReads,
      readModelAfterEndMs: [...readModelRead.values()],
      lookedForMs,
      configurationReads: count('/configuration'),
      alarmReads: count('/alarms'),
      controls,
      controlsDelayedByTelemetry,
      curveOffsetPeriods: curve.offsetPeriods,
      curveMaxErrorW: curve.maxErrorW,
      curvePeakW: Math.max(...truth.map((point) => Math.abs(point.commandedW))),
      snapshot,
      warnings,
      wallMs: {
        setUp: setUpMs,
        verification: verificationMs,
        total: performance.now() - startedAt,
      },
      queue: { jobs: queue.counts.jobs, outcomes: { ...queue.counts.outcomes } },
    };
  } finally {
    await bff.close().catch(() => undefined);
    await sandbox.close().catch(() => undefined);
    await database.drop().catch(() => undefined);
    await rm(database.dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * One fleet snapshot of the bound devices at a quiet moment: the BFF's `runDue`, the clock moved
 * a minute at a time for devices whose read yielded, until each has a sample or 10 passes ran.
 */
async function measureSnapshot(
  bff: FastifyInstance,
  handle: DatabaseHandle,
  sandbox: SandboxApp,
  calls: VendorCall[],
  devices: number,
  moveClockTo: (atMs: number) => Promise<unknown>,
): Promise<VerifyRun['snapshot']> {
  const before = calls.length;
  const snapshots = bff.fleetSnapshots;
  const deferredBefore = snapshots.counts.deferred;
  const sampledNow = async () => {
    const { rows } = (await handle.db.execute(
      `select count(*)::int as n from bff.device_latest_samples where sampled_at is not null`,
    )) as unknown as Rows<{ n: number }>;
    return rows[0]?.n ?? 0;
  };
  const snapshotCalls = () =>
    calls.slice(before).filter((call) => call.route.endsWith('/latestData/query')).length;
  await snapshots.runDue();
  const first = snapshotCalls();
  const sampledFirst = await sampledNow();
  let sampled = sampledFirst;
  let passes = 1;
  // The devices deferred for a read of the read model are read by the next snapshots.
  for (; sampled < devices && passes < 10; passes += 1) {
    await moveClockTo(sandbox.sandboxNow() + MINUTE_MS);
    await snapshots.runDue();
    sampled = await sampledNow();
  }
  return {
    calls: first,
    callsToAll: snapshotCalls(),
    devices,
    sampledFirst,
    sampled,
    deferred: snapshots.counts.deferred - deferredBefore,
    passes,
  };
}

const minutes = (ms: number) => Math.round(ms / 600) / 100;

/** The verification figures of one run of {@link DEVICES} devices. */
export async function measureVerify(options: BenchOptions): Promise<BenchResult[]> {
  const devices = verifyDevicesOf(options.smoke);
  const run = await runVerification(devices, options.log);
  const f = VERIFY_FIGURES;
  const results: BenchResult[] = [];
  const size = `${devices.toLocaleString('en')} devices, one two-hour discharge of ${TARGET_W} W each, the BFF on ${run.databaseKind === 'postgres' ? 'PostgreSQL' : 'PGlite'}`;

  // A device without a verdict counts as never: it raises the figure rather than leaving it.
  const afterEnd = [
    ...run.afterEndMs,
    ...Array.from({ length: devices - run.afterEndMs.length }, () => Infinity),
  ];
  const p99 = percentile(afterEnd, 99);
  const readModelP99 = run.readModelAfterEndMs.length
    ? percentile(run.readModelAfterEndMs, 99)
    : NaN;
  const missing = devices - run.afterEndMs.length;
  const p99Value = Number.isFinite(p99) ? p99 : run.lookedForMs;
  results.push(
    judged(f.verdictP99, minutes(p99Value), {
      ...(Number.isFinite(readModelP99) ? { reference: minutes(readModelP99) } : {}),
      ...(Number.isFinite(readModelP99) && readModelP99 > 0
        ? { ratio: p99Value / readModelP99 }
        : {}),
      reason:
        `${size}; upstream clock from the window's end to the 99th percentile verdict stored ` +
        `(${Number.isFinite(p99) ? '' : `not reached: ${missing} without a verdict after `}` +
        `${minutes(p99Value)} min; p50 ${minutes(percentile(afterEnd, 50))} min), the clock ` +
        `running with the wall clock while the BFF works and jumping over its waits; reference: ` +
        `the read model's p99 first read of a device after the end, which a verification waits ` +
        `a call window behind; wall ${Math.round(run.wallMs.verification / 1000)} s of ` +
        `${Math.round(run.wallMs.total / 1000)} s; ${run.queue.jobs} jobs, outcomes ` +
        `${JSON.stringify(run.queue.outcomes)}`,
    }),
  );

  const scores = classScores(run.behaviourOf, run.verdictOf);
  const confusion = new Map<string, number>();
  for (const [deviceId, behaviour] of run.behaviourOf) {
    const key = `${behaviour}->${run.verdictOf.get(deviceId) ?? 'none'}`;
    confusion.set(key, (confusion.get(key) ?? 0) + 1);
  }
  const byClass = scores
    .map(
      (s) =>
        `${s.behaviour}->${s.expected} ${s.devices} devices, precision ${Math.round(s.precision * 10) / 10}%, recall ${Math.round(s.recall * 10) / 10}%`,
    )
    .join('; ');
  const outcomes = [...confusion].map(([key, n]) => `${key} ${n}`).join(', ');
  results.push(
    judged(f.precision, Math.min(...scores.map((s) => s.precision)), {
      reason: `lowest of the five seeded classes; ${byClass}`,
    }),
    judged(f.recall, Math.min(...scores.map((s) => s.recall)), {
      reason: `lowest of the five seeded classes; behaviour->verdict: ${outcomes}`,
    }),
  );

  const reads = [...run.historicalReads.values()];
  const unread = devices - reads.length;
  results.push(
    judged(f.telemetryReads, Math.max(0, ...reads), {
      reason:
        `historicalData calls per device after the window's end as the sandbox answered them ` +
        `(one page covers 8 h 20 min at 60 s; the window is 2 h): ${reads.reduce((a, b) => a + b, 0)} ` +
        `for ${devices} devices, ${reads.filter((n) => n > 1).length} read more than once, ${unread} never`,
    }),
    reported(f.otherReads, run.configurationReads + run.alarmReads, {
      why: 'one more read per verdict that turns on a limit, by design',
      reason: `${run.configurationReads} configuration reads (devices near a cut-off or site-limited: ${scores
        .filter((s) => s.behaviour === 'nearCutoff' || s.behaviour === 'siteLimited')
        .reduce((sum, s) => sum + s.devices, 0)}), ${run.alarmReads} alarm reads`,
    }),
  );

  const queued = run.controls.filter((c) => c.queued);
  const latencies = run.controls.map((c) => c.answeredAtMs - c.askedAtMs);
  results.push(
    judged(f.controlsDelayed, run.controlsDelayedByTelemetry.length, {
      reason:
        `${run.controls.length} submissions through the BFF, each the moment the sandbox answered ` +
        `its device's telemetry read: ${run.controls.filter((c) => c.status === 202 && !c.queued).length} sent at once, ` +
        `${queued.length} queued (${queued.map((c) => c.queued?.reason).join(', ') || 'none'}), ` +
        `${run.controls.filter((c) => c.status !== 202).length} refused; a queued one counts when a telemetry call of its ` +
        `device was within the minute before; answered in p50 ${latencies.length ? Math.round(percentile(latencies, 50)) : '-'} ms, ` +
        `max ${latencies.length ? Math.round(Math.max(...latencies)) : '-'} ms (upstream clock)`,
    }),
    judged(f.curve, run.curveOffsetPeriods, {
      reason:
        `the event's delivered curve the BFF answers (eventVerdictsOf of its batches) against ` +
        `eventPowerCurve of the sandbox's own samples (app.sandboxSamples), one point per 60 s: ` +
        `the most sampling periods a point had to move to meet the truth within 0.5% of the ` +
        `commanded power (100 W at least); largest difference at the same instant ` +
        `${Math.round(run.curveMaxErrorW)} W of ${Math.round(run.curvePeakW / 1000)} kW commanded`,
    }),
    judged(f.snapshotCalls, run.snapshot.calls, {
      reason:
        `latestData/query calls of one snapshot of the ${run.snapshot.devices} bound devices after ` +
        `the verdicts (100 devices a call): ${run.snapshot.sampledFirst} sampled, the others ` +
        `deferred for a read of the read model due within the minute; every device had a sample ` +
        `(${run.snapshot.sampled}) after ${run.snapshot.passes} snapshots a minute apart and ` +
        `${run.snapshot.callsToAll} calls in all (${run.snapshot.deferred} deferrals)`,
    }),
  );
  if (run.warnings.size > 0)
    options.log(`    BFF warnings: ${[...run.warnings].map(([w, n]) => `${n}x ${w}`).join(' | ')}`);
  return results;
}
