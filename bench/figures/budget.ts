/**
 * The `budget` group (docs/decisions/007-device-call-budget.md): with the sandbox enforcing the
 * vendor's limit (2 calls per device per rolling minute, docs/upstream.md, Rate limit) and the
 * BFF on its default budget, 10 browsers poll what the SPA polls and hold an event stream open
 * while one operator submits, replaces and cancels across 50 devices of 2 sites. Figures: the
 * most vendor calls one device had in any rolling minute, the vendor's 429 answers, the vendor
 * calls polls caused, and how long a change took to reach the other browsers' streams.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { z } from 'zod';
import { isFinalStatus, SubmissionResponseSchema } from '#domain/command.ts';
import { DEFAULT_DEVICE_CALLS_PER_WINDOW, DEVICE_CALL_WINDOW_MS } from '#domain/device-budget.ts';
import { HistoryResponseSchema } from '#domain/history.ts';
import {
  DeviceChangeAnswerSchema,
  QueuedAnswerSchema,
  QueuedChangeStatusSchema,
} from '#domain/queued-change.ts';
import { DEFAULT_DEVICE_CALLS_PER_MINUTE } from '#sandbox/state/device-call-limit.ts';
import type { BenchOptions } from '../lib/context.ts';
import { openEventStream, type BenchEventStream } from '../lib/event-stream.ts';
import { sandboxAdmin, signIn, type BffSession } from '../lib/http.ts';
import { judged, type BenchResult, type Figure } from '../lib/results.ts';
import { startBff, startSandbox } from '../lib/stack.ts';
import { percentile } from '../lib/stats.ts';
import { startVendorRelay, type RelayedDeviceCall } from '../lib/vendor-relay.ts';

export const BUDGET_FIGURES = {
  perDeviceMinute: {
    name: 'budget.upstream_calls_per_device_minute_max',
    unit: 'calls',
    budget: DEFAULT_DEVICE_CALLS_PER_WINDOW,
  },
  rateLimited: { name: 'budget.upstream_429', unit: 'answers', budget: 0 },
  fromPolls: { name: 'budget.upstream_calls_from_polls', unit: 'calls', budget: 0 },
  pushP95: { name: 'budget.push_latency_p95_ms', unit: 'ms', budget: 2_000 },
  perDeviceMinuteSlowWire: {
    name: 'budget.upstream_calls_per_device_minute_max_slow_wire',
    unit: 'calls',
    budget: DEFAULT_DEVICE_CALLS_PER_WINDOW,
  },
  rateLimitedSlowWire: { name: 'budget.upstream_429_slow_wire', unit: 'answers', budget: 0 },
} satisfies Record<string, Figure>;

/** The figures of one run of {@link measureBudget}: the wire as it is, or slow. */
export const BUDGET_FIGURES_BY_WIRE = {
  fast: [
    BUDGET_FIGURES.perDeviceMinute,
    BUDGET_FIGURES.rateLimited,
    BUDGET_FIGURES.fromPolls,
    BUDGET_FIGURES.pushP95,
  ],
  slow: [BUDGET_FIGURES.perDeviceMinuteSlowWire, BUDGET_FIGURES.rateLimitedSlowWire],
} satisfies Record<string, Figure[]>;
export type BenchWire = keyof typeof BUDGET_FIGURES_BY_WIRE;

/**
 * The slow wire: every request to the sandbox waits 0.3 to 3 s on its way in, drawn from a seeded
 * PRNG (the sandbox's fault options, src/sandbox/http/faults.ts), as in
 * test/integration/slow-wire.test.ts.
 */
const SLOW_WIRE = { latencyMs: 300, latencyJitterMs: 2_700, latencySeed: 'bench-slow-wire' };

/**
 * How far the sandbox clock is moved once the bind's reads are answered: a window and 5 s, so
 * the devices' budget (one call of two kept free for a change, `callsKeptForChanges`) has room for
 * the first page views' reads at once, where the bench used to wait out the real minute.
 */
const CLOCK_MOVE_MS = DEVICE_CALL_WINDOW_MS + 5_000;
/** How long the BFF is given to read the moved clock (`bench/servers/bff.ts` reads it every 100 ms). */
const CLOCK_FOLLOW_MS = 500;

/** The SPA's poll intervals (src/client: STATUS_POLL_MS, LIVE_POLL_MS, OVERVIEW_REFRESH_MS). */
const STATUS_POLL_MS = 2_000;
const HISTORY_POLL_MS = 3_000;
const OVERVIEW_POLL_MS = 5_000;

/** Sizes of the run: browsers, devices the operator changes, how long, one change every `paceMs`. */
const SIZES = {
  full: { browsers: 10, devices: 50, durationMs: 300_000, paceMs: 2_000 },
  smoke: { browsers: 3, devices: 6, durationMs: 12_000, paceMs: 1_000 },
};

/** Sites bound: Berlin (3 devices) and Leipzig (60) of the `demo` fixture. */
const SITES = ['PLANT-EU-001', 'PLANT-EU-100'];
const leipzig = (n: number) => `BAT-EU-100-${String(n).padStart(2, '0')}`;
/** The 50 devices the operator changes: Berlin's 3 and Leipzig's first 47. */
const OPERATED = [
  'BAT-EU-001-A',
  'BAT-EU-001-B',
  'BAT-EU-001-C',
  ...Array.from({ length: 47 }, (_, i) => leipzig(i + 1)),
];
/**
 * Leipzig's other 13: bound, polled by the browsers, never changed. The BFF reads each once when
 * the site is bound and then has nothing due for them (no open command), so any later vendor
 * call about one of them is one a browser's poll caused.
 */
const UNTOUCHED = Array.from({ length: 13 }, (_, i) => leipzig(i + 48));

/** Devices whose history a browser's page shows: operated ones, and untouched ones. */
const VIEWED_OPERATED = 8;
const VIEWED_UNTOUCHED = 3;
/** Most open commands whose status a browser polls (a page tracks a few). */
const TRACKED_COMMANDS = 5;
/** How long after the last change the streams are still read, ms. */
const PUSH_GRACE_MS = { full: 5_000, smoke: 2_000 };
const REQUEST_TIMEOUT_MS = 15_000;

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** The history a browser's page shows: yesterday to two weeks ahead, fixed at the start. */
const historyRange = new URLSearchParams({
  startTime: iso(Date.now() - 24 * HOUR_MS),
  endTime: iso(Date.now() + 14 * 24 * HOUR_MS),
}).toString();

/** A read of the BFF's refresher, as `bench/servers/bff.ts` prints it (`DEVICE READ {json}`). */
const DeviceReadLineSchema = z.object({
  deviceId: z.string(),
  reason: z.string(),
  outcome: z.string(),
  calls: z.number(),
  atMs: z.number(),
});
type DeviceReadLine = z.infer<typeof DeviceReadLineSchema>;

/** Collects the `DEVICE READ` lines a process prints on its standard output. */
function collectDeviceReads(stdout: NodeJS.ReadableStream | null | undefined): DeviceReadLine[] {
  const reads: DeviceReadLine[] = [];
  let rest = '';
  stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const at = line.indexOf('DEVICE READ ');
      if (at < 0) continue;
      try {
        const read = DeviceReadLineSchema.safeParse(JSON.parse(line.slice(at + 12)));
        if (read.success) reads.push(read.data);
      } catch {
        // Not a whole line of ours: ignored.
      }
    }
  });
  return reads;
}

/** Reads by why they were due and how they ended, with their calls: `idle read 1 (1 call)`. */
function readsByReason(reads: readonly DeviceReadLine[]): string {
  const byKey = new Map<string, { reads: number; calls: number }>();
  for (const read of reads) {
    const key = `${read.reason} ${read.outcome}`;
    const sum = byKey.get(key) ?? { reads: 0, calls: 0 };
    byKey.set(key, { reads: sum.reads + 1, calls: sum.calls + read.calls });
  }
  return (
    [...byKey].map(([key, sum]) => `${key} ${sum.reads} (${sum.calls} calls)`).join(', ') || 'none'
  );
}

const SandboxDeviceStatsSchema = z.object({
  byDevice: z.record(z.string(), z.object({ calls: z.number(), refused: z.number() })),
});

interface Answer {
  status: number;
  body: unknown;
}

/** A product API call as the SPA makes it: cookie, and for changes `X-CSRF`, Origin and a key. */
async function call(
  session: BffSession,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await request(`${session.origin}${path}`, {
    method,
    headers: {
      cookie: session.cookie,
      ...(method === 'GET'
        ? {}
        : { 'x-csrf': '1', origin: session.origin, 'idempotency-key': randomUUID() }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  const text = await response.body.text();
  let parsed: unknown;
  try {
    parsed = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.statusCode, body: parsed };
}

/** A change the operator made: on which device, when sent and answered (`Date.now()`, ms). */
interface OperatorChange {
  deviceId: string;
  what: 'submit' | 'replace' | 'cancel';
  sentAtMs: number;
  answeredAtMs: number;
  status: number;
}

/** Where the operator stands with one device. */
interface DeviceWork {
  phase: 'none' | 'submitted' | 'replaced';
  /** The device's current command, once known. */
  commandId?: string;
  /** A queued change whose outcome is still to be learnt, and whether it made a command. */
  pending?: { changeId: string; makesCommand: boolean };
  /** Windows used so far: each new one is the next free hour. */
  windows: number;
}

/** Counters of what the browsers and the operator did. */
interface Tally {
  polls: number;
  pollsFailed: Map<number, number>;
  changes: Map<string, number>;
  skipped: number;
  queuedReasons: Map<string, number>;
}

const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

/**
 * Runs `work` every `intervalMs` from `offsetMs` on until `running()` is false, the way a query's
 * `refetchInterval` does (the next one starts an interval after the previous one started, or at
 * once when it took longer).
 */
async function every(
  intervalMs: number,
  offsetMs: number,
  running: () => boolean,
  work: () => Promise<void>,
): Promise<void> {
  await sleep(offsetMs);
  while (running()) {
    const startedAt = Date.now();
    await work();
    await sleep(Math.max(0, intervalMs - (Date.now() - startedAt)));
  }
}

/** One browser's polls: overview, the histories of its page's devices, its open commands. */
async function browserPolls(
  session: BffSession,
  index: number,
  browsers: number,
  operated: readonly string[],
  running: () => boolean,
  tally: Tally,
): Promise<void> {
  const viewed = [
    ...Array.from(
      { length: Math.min(VIEWED_OPERATED, operated.length) },
      (_, k) => operated[(index * 5 + k) % operated.length] ?? '',
    ),
    ...Array.from(
      { length: VIEWED_UNTOUCHED },
      (_, k) => UNTOUCHED[(index * VIEWED_UNTOUCHED + k) % UNTOUCHED.length] ?? '',
    ),
  ];
  const open = new Map<string, string>();
  const poll = async (path: string): Promise<unknown> => {
    try {
      const answer = await call(session, 'GET', path);
      tally.polls++;
      if (answer.status !== 200) bump(tally.pollsFailed, answer.status);
      return answer.status === 200 ? answer.body : undefined;
    } catch {
      bump(tally.pollsFailed, 0);
      return undefined;
    }
  };
  const stagger = (intervalMs: number) => Math.round((index * intervalMs) / browsers);
  await Promise.all([
    every(OVERVIEW_POLL_MS, stagger(OVERVIEW_POLL_MS), running, async () => {
      await poll('/api/overview?region=eu');
    }),
    every(HISTORY_POLL_MS, stagger(HISTORY_POLL_MS), running, async () => {
      await Promise.all(
        viewed.map(async (deviceId) => {
          const page = HistoryResponseSchema.safeParse(
            await poll(`/api/devices/${deviceId}/commands?${historyRange}`),
          );
          if (!page.success) return;
          for (const [id, device] of open) if (device === deviceId) open.delete(id);
          for (const record of page.data.commands)
            if (!isFinalStatus(record.status)) open.set(record.id, deviceId);
        }),
      );
    }),
    every(STATUS_POLL_MS, stagger(STATUS_POLL_MS), running, async () => {
      await Promise.all(
        [...open]
          .slice(0, TRACKED_COMMANDS)
          .map(([commandId, deviceId]) => poll(`/api/devices/${deviceId}/commands/${commandId}`)),
      );
    }),
  ]);
}

/** The command a queued change made, once it was sent: its submission step's answer. */
async function outcomeOf(
  session: BffSession,
  pending: NonNullable<DeviceWork['pending']>,
): Promise<{ done: false } | { done: true; commandId?: string }> {
  const answer = await call(session, 'GET', `/api/changes/${pending.changeId}`);
  const change = QueuedChangeStatusSchema.safeParse(answer.body);
  if (answer.status !== 200 || !change.success) return { done: true };
  if (change.data.state === 'queued' || change.data.state === 'sending') return { done: false };
  if (change.data.state !== 'sent' || !pending.makesCommand) return { done: true };
  const submitted = change.data.steps
    .filter((step) => step.call === 'submit')
    .map((step) => SubmissionResponseSchema.safeParse(step.answer?.body))
    .find((parsed) => parsed.success);
  return { done: true, ...(submitted?.data ? { commandId: submitted.data.id } : {}) };
}

/**
 * The operator's next change of `deviceId`: a submission, then a replace of it (a new window),
 * then a cancel, then a submission again. Sent now (200/201) or queued (202) are both normal; a
 * queued change's command is learnt from the change's status at the device's next turn.
 */
async function operate(
  session: BffSession,
  deviceId: string,
  work: DeviceWork,
  baseMs: number,
  tally: Tally,
): Promise<OperatorChange | undefined> {
  if (work.pending) {
    const outcome = await outcomeOf(session, work.pending);
    if (!outcome.done) {
      tally.skipped++;
      return undefined;
    }
    work.pending = undefined;
    if (outcome.commandId) work.commandId = outcome.commandId;
    else if (work.phase !== 'none') work.phase = 'none';
  }
  const window = () => {
    const startMs = baseMs + work.windows++ * HOUR_MS;
    return {
      powerControl: { targetBatteryPowerW: 1000 + 100 * (work.windows % 10) },
      startTime: iso(startMs),
      endTime: iso(startMs + HOUR_MS / 2),
    };
  };
  const sentAtMs = Date.now();
  let what: OperatorChange['what'];
  let answer: Answer;
  if (work.phase === 'none' || !work.commandId) {
    what = 'submit';
    answer = await call(session, 'POST', `/api/devices/${deviceId}/commands`, window());
    const queued = QueuedAnswerSchema.safeParse(answer.body);
    const sent = SubmissionResponseSchema.safeParse(answer.body);
    if (answer.status === 202 && queued.success) {
      work.phase = 'submitted';
      work.pending = { changeId: queued.data.queued.changeId, makesCommand: true };
    } else if (sent.success) {
      work.phase = 'submitted';
      work.commandId = sent.data.id;
    }
  } else if (work.phase === 'submitted') {
    what = 'replace';
    answer = await call(session, 'POST', `/api/devices/${deviceId}/changes`, {
      kind: 'replace',
      commandId: work.commandId,
      command: window(),
    });
    const change = DeviceChangeAnswerSchema.safeParse(answer.body);
    if (change.success && answer.status === 202) {
      work.phase = 'replaced';
      work.pending = { changeId: change.data.change.id, makesCommand: true };
    } else if (change.success && change.data.submitted) {
      work.phase = 'replaced';
      work.commandId = change.data.submitted.id;
    }
  } else {
    what = 'cancel';
    answer = await call(
      session,
      'PUT',
      `/api/devices/${deviceId}/commands/${work.commandId}/cancel`,
    );
    const queued = QueuedAnswerSchema.safeParse(answer.body);
    if (answer.status === 202 && queued.success)
      work.pending = { changeId: queued.data.queued.changeId, makesCommand: false };
    if (answer.status === 200 || answer.status === 202) {
      work.phase = 'none';
      delete work.commandId;
    }
  }
  const queued = answer.status === 202 && what !== 'submit' ? true : isQueued(answer.body);
  const outcome = answer.status >= 300 ? `HTTP ${answer.status}` : queued ? 'queued' : 'sent';
  bump(tally.changes, `${what} ${outcome}`);
  const wait = z
    .object({ queued: z.object({ reason: z.string(), goesAt: z.string() }) })
    .safeParse(answer.body);
  if (wait.success)
    bump(
      tally.queuedReasons,
      `${wait.data.queued.reason} ${Math.round((Date.parse(wait.data.queued.goesAt) - Date.now()) / 10_000) * 10} s`,
    );
  return { deviceId, what, sentAtMs, answeredAtMs: Date.now(), status: answer.status };
}

const isQueued = (body: unknown) => QueuedAnswerSchema.safeParse(body).success;

/** Device IDs an account event names (`deviceCommandsChanged`, `queuedChangeChanged`). */
function devicesNamed(data: unknown): string[] {
  const parsed = z.object({ deviceIds: z.array(z.string()) }).safeParse(data);
  return parsed.success ? parsed.data.deviceIds : [];
}

/**
 * Push latency of each change to each other browser: from the change's answer to the first
 * message of that browser's stream, read after the change was sent, naming its device; 0 when it
 * came before the answer. A change never seen counts from its answer to the end of reading, so
 * it raises the percentile rather than vanishing from it.
 */
function pushLatencies(
  changes: readonly OperatorChange[],
  streams: readonly BenchEventStream[],
  endMs: number,
): { latenciesMs: number[]; unseen: number } {
  const latenciesMs: number[] = [];
  let unseen = 0;
  for (const change of changes)
    for (const stream of streams) {
      const seen = stream.received.find(
        (push) =>
          push.receivedAtMs >= change.sentAtMs &&
          devicesNamed(push.message.data).includes(change.deviceId),
      );
      if (!seen) unseen++;
      latenciesMs.push(Math.max(0, (seen?.receivedAtMs ?? endMs) - change.answeredAtMs));
    }
  return { latenciesMs, unseen };
}

/**
 * The most calls of one device in any rolling minute (a call at `t` counts until `t + 60 s`), `t`
 * the call's answer on the sandbox's clock (`answeredAtMs`): when the vendor counted it.
 */
export function maxPerRollingMinute(calls: readonly RelayedDeviceCall[]): {
  max: number;
  deviceId: string;
  closestThirdMs: number;
} {
  const byDevice = new Map<string, number[]>();
  for (const c of calls)
    for (const deviceId of c.deviceIds)
      byDevice.set(deviceId, [...(byDevice.get(deviceId) ?? []), c.answeredAtMs]);
  let max = 0;
  let worst = '';
  let closestThirdMs = Number.POSITIVE_INFINITY;
  for (const [deviceId, times] of byDevice) {
    times.sort((a, b) => a - b);
    for (let i = 0, start = 0; i < times.length; i++) {
      while ((times[start] ?? 0) <= (times[i] ?? 0) - MINUTE_MS) start++;
      if (i - start + 1 > max) {
        max = i - start + 1;
        worst = deviceId;
      }
      if (i >= 2) closestThirdMs = Math.min(closestThirdMs, (times[i] ?? 0) - (times[i - 2] ?? 0));
    }
  }
  return { max, deviceId: worst, closestThirdMs };
}

/**
 * Starts its own sandbox (fixture `demo`, the vendor's limit on at 2) behind a relay that records
 * every device call, and a BFF on its default budget that counts on the sandbox's clock; binds
 * Berlin and Leipzig; once the bind's reads are answered moves the sandbox clock a minute on
 * instead of waiting it out; runs the browsers and the operator for 5 minutes (12 s in the
 * smoke); stops everything it started. `wire: 'slow'` injects 0.3 to 3 s of jittered latency
 * before every request to the sandbox ({@link SLOW_WIRE}) and gives only the per-device and 429
 * figures of that run.
 */
export async function measureBudget(
  options: BenchOptions,
  spaDir: string,
  wire: BenchWire = 'fast',
): Promise<BenchResult[]> {
  const size = options.smoke ? SIZES.smoke : SIZES.full;
  const operated = OPERATED.slice(0, size.devices);
  const setUpAt = performance.now();
  const streams: BenchEventStream[] = [];
  // The BFF reaches the sandbox through the relay (token, catalog and vendor calls alike), so
  // both start at once: the BFF calls nothing upstream before the first sign-in.
  const relay = await startVendorRelay();
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
  let bff: Awaited<ReturnType<typeof startBff>> | undefined;
  let running = true;
  try {
    const sandboxStarting = startSandbox(options, {
      // Each run its own data directories (named after the process): the slow run on the fast
      // run's database would find the sites bound and the devices read already.
      name: `budget sandbox${wire === 'slow' ? ' slow wire' : ''}`,
      fixture: 'demo',
      rateLimitPerMinute: DEFAULT_DEVICE_CALLS_PER_MINUTE,
    });
    const bffStarting = startBff(
      `budget BFF${wire === 'slow' ? ' slow wire' : ''}`,
      options,
      relay.origin,
      spaDir,
      {
        EU_DEVICE_CALLS_PER_MINUTE: String(DEFAULT_DEVICE_CALLS_PER_WINDOW),
        AU_DEVICE_CALLS_PER_MINUTE: String(DEFAULT_DEVICE_CALLS_PER_WINDOW),
        BENCH_PRINT_DEVICE_READS: '1',
        BENCH_UPSTREAM_CLOCK_URL: `${relay.origin}/_sandbox/clock`,
      },
    );
    // Both are tracked by the run (stopAll), so one failing to start leaves nothing behind.
    [sandbox, bff] = await Promise.all([sandboxStarting, bffStarting]);
    const deviceReads = collectDeviceReads(bff.process.child.stdout);
    relay.forwardTo(sandbox.origin);
    const admin = sandboxAdmin(sandbox.origin);
    if (wire === 'slow') await admin.faults(SLOW_WIRE);
    options.log(`  sandbox and BFF ready in ${Math.round(performance.now() - setUpAt)} ms`);
    const origin = bff.origin;
    const sessions = await Promise.all(Array.from({ length: size.browsers }, () => signIn(origin)));
    const operator = sessions[0];
    if (!operator) throw new Error('no browser signed in');
    for (const siteId of SITES) {
      const bound = await call(operator, 'POST', '/api/sites', { siteId });
      if (bound.status >= 300)
        throw new Error(`binding ${siteId}: HTTP ${bound.status} ${JSON.stringify(bound.body)}`);
    }
    for (const session of sessions) streams.push(await openEventStream(session));
    await Promise.all(streams.map((stream) => stream.ready(15_000)));

    // The BFF reads each device of a newly bound site once; those reads are waited for (so that
    // calls about the untouched devices from here on can only come from the polls), and for no
    // call on its way, before the sandbox clock moves: a call answered while the BFF still reads
    // the old clock would be counted a minute early.
    const boundBy = Date.now() + (wire === 'slow' ? 90_000 : 30_000);
    const readAll = (devices: readonly string[]) =>
      devices.every((d) => relay.calls.some((c) => c.deviceIds.includes(d)));
    const bound = [...OPERATED, ...UNTOUCHED];
    while (!(readAll(bound) && relay.inFlight() === 0) && Date.now() < boundBy) await sleep(250);
    const firstReadsSeen = readAll(UNTOUCHED);
    options.log(
      `  the bind's reads ${readAll(bound) ? 'answered' : 'NOT all answered'} ${Math.round((Date.now() - (boundBy - (wire === 'slow' ? 90_000 : 30_000))) / 1000)} s after the bind (${readsByReason(deviceReads)}); the sandbox clock moves ${CLOCK_MOVE_MS / 1000} s`,
    );
    await admin.advanceClock(CLOCK_MOVE_MS);
    relay.clockMovedBy(CLOCK_MOVE_MS);
    await sleep(CLOCK_FOLLOW_MS);
    // Each browser opens its page: a 30-day slot of history the bind's read did not cover is read
    // once, by design (the read model reads a range the first time a page asks for it). Those
    // reads are waited for and reported, so the window below counts what repeated polls cause.
    // They wait for the budget: a read leaves one of the device's calls free for a change
    // (`callsKeptForChanges`), so after the bind's read it goes only once that call has left
    // the vendor's window, a minute after it was answered: the clock moved above. The wait
    // still allows a real minute and half a minute more, should the BFF not have followed.
    const firstViewFrom = relay.calls.length;
    const viewedBy = Date.now() + DEVICE_CALL_WINDOW_MS + 30_000;
    const viewed = await Promise.all(
      UNTOUCHED.map(async (deviceId) => {
        while (Date.now() < viewedBy) {
          const page = HistoryResponseSchema.safeParse(
            (await call(operator, 'GET', `/api/devices/${deviceId}/commands?${historyRange}`)).body,
          );
          // `readAt`: the BFF's read of the device's present completed (a read that failed, e.g.
          // timed out under load, is tried again later and would land in the window).
          if (page.success && !page.data.historyPending && page.data.readAt) return true;
          await sleep(1_000);
        }
        return false;
      }),
    );
    const firstViewsNotRead = viewed.filter((done) => !done).length;
    const failedReads = () => deviceReads.filter((read) => read.outcome === 'failed').length;
    const failedBeforeStart = failedReads();
    const firstViewReads = relay.calls
      .slice(firstViewFrom)
      .filter((c) => c.deviceIds.some((d) => UNTOUCHED.includes(d))).length;
    const startedAtMs = Date.now();
    const stopAtMs = startedAtMs + size.durationMs;
    const isRunning = () => running && Date.now() < stopAtMs;
    const tally: Tally = {
      polls: 0,
      pollsFailed: new Map(),
      changes: new Map(),
      skipped: 0,
      queuedReasons: new Map(),
    };
    const changes: OperatorChange[] = [];
    const baseMs = Math.ceil(startedAtMs / HOUR_MS) * HOUR_MS + 48 * HOUR_MS;
    const work = new Map(operated.map((d) => [d, { phase: 'none', windows: 0 } as DeviceWork]));
    let turn = 0;
    await Promise.all([
      ...sessions.map((session, index) =>
        browserPolls(session, index, size.browsers, operated, isRunning, tally),
      ),
      every(size.paceMs, 0, isRunning, async () => {
        const deviceId = operated[turn++ % operated.length] ?? '';
        const device = work.get(deviceId);
        if (!device) return;
        try {
          const change = await operate(operator, deviceId, device, baseMs, tally);
          if (change) changes.push(change);
        } catch (error) {
          bump(tally.changes, `error ${String(error).slice(0, 60)}`);
        }
      }),
    ]);
    await sleep(options.smoke ? PUSH_GRACE_MS.smoke : PUSH_GRACE_MS.full);
    const endMs = Date.now();

    const stats = SandboxDeviceStatsSchema.parse(
      await (await request(`${relay.origin}/_sandbox/stats`)).body.json(),
    );
    const refused = Object.values(stats.byDevice).reduce((sum, d) => sum + d.refused, 0);
    const sandboxCalls = Object.values(stats.byDevice).reduce((sum, d) => sum + d.calls, 0);
    const calls = relay.calls;
    const perMinute = maxPerRollingMinute(calls);
    const fromPolls = calls.filter(
      (c) => c.atMs >= startedAtMs && c.deviceIds.some((d) => UNTOUCHED.includes(d)),
    );
    const untouchedReads = deviceReads.filter(
      (read) => read.atMs >= startedAtMs && UNTOUCHED.includes(read.deviceId),
    );
    const untouchedBeforeStart = deviceReads.filter(
      (read) => read.atMs < startedAtMs && UNTOUCHED.includes(read.deviceId),
    );
    const statusReads = calls.filter(
      (c) => c.atMs >= startedAtMs && c.route.startsWith('GET /devices/:deviceId/commands/'),
    ).length;
    const answered = changes.filter((c) => c.status >= 200 && c.status < 300);
    const { latenciesMs, unseen } = pushLatencies(answered, streams.slice(1), endMs);
    const routes = new Map<string, number>();
    for (const c of calls) bump(routes, c.route);
    const list = (map: Map<string | number, number>) =>
      [...map].map(([key, count]) => `${key}: ${count}`).join(', ') || 'none';
    const wireSays =
      wire === 'slow'
        ? `, every request to the sandbox ${SLOW_WIRE.latencyMs / 1000} to ${(SLOW_WIRE.latencyMs + SLOW_WIRE.latencyJitterMs) / 1000} s late (seeded jitter)`
        : '';
    const setup = `${size.browsers} browsers, ${operated.length} devices of ${SITES.join(' and ')} (+${UNTOUCHED.length} untouched), ${Math.round(size.durationMs / 1000)} s, a change every ${size.paceMs / 1000} s${wireSays}`;
    options.log(
      `  ${wire === 'slow' ? 'slow wire: ' : ''}${setup}; changes ${list(tally.changes)}; queued ${list(tally.queuedReasons)}; ${tally.polls} polls; vendor calls ${list(routes)}`,
    );
    const perMinuteResult = judged(
      wire === 'slow' ? BUDGET_FIGURES.perDeviceMinuteSlowWire : BUDGET_FIGURES.perDeviceMinute,
      perMinute.max,
      {
        reason: `most vendor calls of one device (${perMinute.deviceId || 'none'}) in any rolling 60 s, each at its answer on the sandbox clock, recorded by a relay before the sandbox (the clock moved once by ${CLOCK_MOVE_MS / 1000} s after the bind's reads, the BFF counting on it); closest third call ${Number.isFinite(perMinute.closestThirdMs) ? `${Math.round(perMinute.closestThirdMs)} ms` : '-'} after the first; ${calls.length} device calls relayed, ${sandboxCalls} counted by the sandbox; ${setup}`,
      },
    );
    const rateLimitedResult = judged(
      wire === 'slow' ? BUDGET_FIGURES.rateLimitedSlowWire : BUDGET_FIGURES.rateLimited,
      refused,
      {
        reason: `vendor calls refused by the sandbox's limit of ${DEFAULT_DEVICE_CALLS_PER_MINUTE}/device/min (its per-device stats); the relay saw ${calls.filter((c) => c.status === 429).length} answered 429`,
      },
    );
    if (wire === 'slow') return [perMinuteResult, rateLimitedResult];
    return [
      perMinuteResult,
      rateLimitedResult,
      judged(BUDGET_FIGURES.fromPolls, fromPolls.length, {
        reason: `vendor calls about the ${UNTOUCHED.length} bound devices never changed, which the browsers poll (history) and the BFF has nothing due for, after their first read when bound${firstReadsSeen ? '' : ' (not all seen within 30 s)'} and their first read of the range the pages show (${firstViewReads} reads, once per device and 30-day slot never read, not counted${firstViewsNotRead > 0 ? `; ${firstViewsNotRead} devices not read within ${Math.round((DEVICE_CALL_WINDOW_MS + 30_000) / 1000)} s` : ''}); the BFF had ${failedBeforeStart} failed device reads before the start and ${failedReads() - failedBeforeStart} after (each read again 15 s and more later); ${tally.polls} browser polls (${tally.pollsFailed.size > 0 ? `not 200: ${list(tally.pollsFailed)}` : 'all 200'}); vendor status reads (a poll's upstream shape) ${statusReads}; the BFF's reads of the untouched devices by why they were due: before the start ${readsByReason(untouchedBeforeStart)}, after ${readsByReason(untouchedReads)}${
          untouchedReads.some((read) => read.calls > 0)
            ? ` (first calling: ${untouchedReads
                .filter((read) => read.calls > 0)
                .slice(0, 3)
                .map(
                  (read) =>
                    `${read.deviceId} ${read.reason} +${Math.round((read.atMs - startedAtMs) / 1000)} s`,
                )
                .join(', ')})`
            : ''
        }; all its reads after the start ${readsByReason(deviceReads.filter((read) => read.atMs >= startedAtMs))}${
          fromPolls.length > 0
            ? `; first: ${fromPolls
                .slice(0, 5)
                .map(
                  (c) =>
                    `${c.deviceIds.join(' ')} +${Math.round((c.atMs - startedAtMs) / 1000)} s ${c.route} ${c.status}`,
                )
                .join(', ')}`
            : ''
        }`,
      }),
      latenciesMs.length === 0
        ? judged(BUDGET_FIGURES.pushP95, Number.POSITIVE_INFINITY, {
            reason: 'no change answered, no push latency',
          })
        : judged(BUDGET_FIGURES.pushP95, percentile(latenciesMs, 95), {
            reason: `from a change's answer to the first event naming its device in each of the ${streams.length - 1} other browsers' streams; ${answered.length} changes (${list(tally.changes)}, ${tally.skipped} turns waiting for a queued change), p50 ${percentile(latenciesMs, 50)} ms, max ${Math.max(...latenciesMs)} ms, ${unseen} never seen`,
          }),
    ];
  } finally {
    running = false;
    for (const stream of streams) stream.close();
    await bff?.process.stop();
    await relay.close();
    await sandbox?.process.stop();
  }
}
