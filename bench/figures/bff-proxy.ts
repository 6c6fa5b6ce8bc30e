/**
 * The BFF's proxy figures, added latency and throughput, measured on the BFF as configured for
 * production and on 2,000 distinct commands its read model knows (`awaitKnownToBff`): it answers
 * every status read from the read model (decision 007, section 3), so no BFF request reaches the
 * sandbox, while every direct and reference-proxy request does; the throughput budget asks for
 * at least 2x the pass-through proxy for that reason. Both are judged against the reference
 * pass-through proxy (`bench/servers/reference-proxy.ts`) in the same run; the BFF's added
 * milliseconds are reported too, not judged, because they swing with the machine's load
 * (`docs/architecture.md`, "Budgets").
 */
import autocannon from 'autocannon';
import { Client } from 'undici';
import type { BenchCommand, BenchOptions, Stack } from '../lib/context.ts';
import { sandboxAdmin, sandboxToken, vendorPath } from '../lib/http.ts';
import { waitForOutput, type Started } from '../lib/processes.ts';
import { processCpuMs } from '../lib/cpu-time.ts';
import {
  judged,
  notMeasured,
  reported,
  type BenchResult,
  type JudgedFigure,
  type ReportedFigure,
} from '../lib/results.ts';
import { median, percentile } from '../lib/stats.ts';

export const PROXY_FIGURES = {
  addedP50Ratio: { name: 'bff.added_p50_ratio_vs_reference', unit: 'x', budget: 1.5 },
  addedP99Ratio: { name: 'bff.added_p99_ratio_vs_reference', unit: 'x', budget: 1.5 },
  addedP50: { name: 'bff.added_p50_ms', unit: 'ms', budget: null },
  addedP99: { name: 'bff.added_p99_ms', unit: 'ms', budget: null },
  throughput: { name: 'bff.throughput_ratio_vs_reference', unit: 'x', budget: 2, kind: 'min' },
  floorThroughput: { name: 'bff.fastify_floor_ratio_vs_reference', unit: 'x', budget: null },
} satisfies Record<string, JudgedFigure | ReportedFigure>;

/**
 * The sandbox's stats key of the vendor's status route (`GET /_sandbox/stats`, `byRoute`: the
 * path under the vendor's base path), which the product API's status route mirrors.
 */
const STATUS_ROUTE = 'eu GET /devices/:deviceId/commands/:commandId';

const statusPath = (c: BenchCommand) => `/devices/${c.deviceId}/commands/${c.commandId}`;
const pct = (share: number) => `${Math.round(share * 1000) / 10}%`;

/** Status GETs the sandbox answered while `run` ran. */
async function upstreamStatusCalls(stack: Stack, run: () => Promise<void>): Promise<number> {
  const admin = sandboxAdmin(stack.sandboxOrigin);
  const before = (await admin.stats()).byRoute?.[STATUS_ROUTE] ?? 0;
  await run();
  return ((await admin.stats()).byRoute?.[STATUS_ROUTE] ?? 0) - before;
}

function distinctOf(stack: Stack): NonNullable<Stack['distinct']> {
  if (!stack.distinct || stack.distinct.commands.length === 0)
    throw new Error('no distinct commands');
  return stack.distinct;
}

function referenceOf(stack: Stack): NonNullable<Stack['reference']> {
  if (!stack.reference) throw new Error('no reference proxy');
  return stack.reference;
}

async function timedGet(
  client: Client,
  path: string,
  headers: Record<string, string>,
): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await client.request({ method: 'GET', path, headers });
  await response.body.dump();
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (response.statusCode !== 200) throw new Error(`GET ${path}: HTTP ${response.statusCode}`);
  return elapsedMs;
}

/** Latencies of one round, ms: each path's p50 and p99 over the same commands. */
interface LatencyRound {
  direct: { p50: number; p99: number };
  bff: { p50: number; p99: number };
  reference: { p50: number; p99: number };
}

const quantiles = (samples: number[]) => ({
  p50: percentile(samples, 50),
  p99: percentile(samples, 99),
});

/** What a proxy adds at a quantile: its percentile minus the direct one, median of the rounds. */
const added = (rounds: LatencyRound[], via: 'bff' | 'reference', q: 'p50' | 'p99') =>
  median(rounds.map((r) => r[via][q] - r.direct[q]));

/**
 * One keep-alive connection per path, sequential status GETs to the sandbox directly, through
 * the BFF and through the reference proxy, the same distinct command on all three,
 * the next command each triple, and the order rotated triple by triple so no path always comes
 * first (the sandbox answers a repeat of the same GET from warmer caches). A path's added latency
 * is its percentile minus the direct percentile, median of the rounds; the judged figures are
 * the BFF's added latency over the reference's.
 */
export async function measureAddedLatency(
  stack: Stack,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const distinct = distinctOf(stack);
  const ref = referenceOf(stack);
  const token = await sandboxToken(stack.sandboxOrigin);
  const direct = new Client(stack.sandboxOrigin, { pipelining: 1 });
  const viaBff = new Client(stack.bffOrigin, { pipelining: 1 });
  const viaReference = new Client(ref.origin, { pipelining: 1 });
  const directHeaders = { authorization: `Bearer ${token}` };
  const rounds = options.smoke ? 1 : 3;
  const perRound = options.smoke ? 50 : 1000;
  const deadline = Date.now() + (options.smoke ? 20_000 : 180_000);
  let next = 0;
  const nextCommand = () => distinct.commands[next++ % distinct.commands.length] as BenchCommand;
  const paths = [
    (path: string) => timedGet(direct, vendorPath(path), directHeaders),
    (path: string) => timedGet(viaBff, `/api${path}`, { cookie: stack.session.cookie }),
    (path: string) => timedGet(viaReference, `/api${path}`, {}),
  ] as const;
  /** [direct, BFF, reference] ms for one command, asked in the order given by `turn`. */
  const triple = async (command: BenchCommand, turn: number) => {
    const path = statusPath(command);
    const ms = [0, 0, 0];
    for (let k = 0; k < 3; k++) {
      const which = (turn + k) % 3;
      ms[which] = await (paths[which] as (p: string) => Promise<number>)(path);
    }
    return ms as [number, number, number];
  };
  try {
    for (let i = 0; i < (options.smoke ? 10 : 200); i++) await triple(nextCommand(), i);
    const honest: LatencyRound[] = [];
    let bffCalls = 0;
    let upstream = 0;
    for (let round = 0; round < rounds && Date.now() < deadline; round++) {
      const samples: [number[], number[], number[]] = [[], [], []];
      upstream += await upstreamStatusCalls(stack, async () => {
        for (let i = 0; i < perRound && Date.now() < deadline; i++) {
          const ms = await triple(nextCommand(), i);
          for (let k = 0; k < 3; k++) samples[k]?.push(ms[k] ?? 0);
        }
      });
      // Direct and reference GETs reach the sandbox too: what is left is the BFF's share.
      bffCalls += samples[1].length;
      upstream -= samples[0].length + samples[2].length;
      honest.push({
        direct: quantiles(samples[0]),
        bff: quantiles(samples[1]),
        reference: quantiles(samples[2]),
      });
    }
    if (honest.length === 0) throw new Error('no latency round finished before the deadline');
    const reached = `${pct(upstream / bffCalls)} of the ${bffCalls} BFF GETs reached the sandbox`;
    const setup = `BFF as in production, ${distinct.commands.length} distinct commands its read model knows, ${honest.length} rounds of ${perRound} GETs per path, order rotated`;
    const directP50 = median(honest.map((r) => r.direct.p50));
    const results: BenchResult[] = [];
    for (const q of ['p50', 'p99'] as const) {
      const bffAdded = added(honest, 'bff', q);
      const refAdded = added(honest, 'reference', q);
      const figure = q === 'p50' ? PROXY_FIGURES.addedP50Ratio : PROXY_FIGURES.addedP99Ratio;
      // A reference that adds nothing (or less than nothing: noise) leaves no ratio to judge. A
      // full run must judge it, so that is an error there; the smoke run's 50 GETs make a p99
      // that is one sample's noise, and it only has to show the harness still runs.
      if (!(refAdded > 0)) {
        const why = `the reference proxy added ${refAdded.toFixed(3)} ms at ${q}: no ratio to judge`;
        if (!options.smoke) throw new Error(why);
        results.push(notMeasured(figure, `not judged in a smoke run: ${why}`));
        continue;
      }
      const perRound = honest
        .map((r) => ((r.bff[q] - r.direct[q]) / (r.reference[q] - r.direct[q])).toFixed(2))
        .join(', ');
      results.push(
        judged(figure, bffAdded / refAdded, {
          reference: refAdded,
          ratio: bffAdded / refAdded,
          reason: `BFF adds ${bffAdded.toFixed(3)} ms at ${q} over direct, the reference proxy ${refAdded.toFixed(3)} ms (direct ${q} ${median(honest.map((r) => r.direct[q])).toFixed(3)} ms); rounds ${perRound}; ${setup}; ${reached}`,
        }),
      );
    }
    const why = 'absolute, swings with the load; judged as bff.added_*_ratio_vs_reference';
    results.push(
      reported(PROXY_FIGURES.addedP50, added(honest, 'bff', 'p50'), {
        reference: directP50,
        why,
        reason: `BFF p50 minus direct p50 (reference: direct p50), one connection per path; ${setup}`,
      }),
      reported(PROXY_FIGURES.addedP99, added(honest, 'bff', 'p99'), {
        why,
        reason: `BFF p99 minus direct p99, one connection per path; ${setup}`,
      }),
    );
    return results;
  } finally {
    await Promise.all([direct.close(), viaBff.close(), viaReference.close()]);
  }
}

/** SIGUSR2 to a BFF started with `BENCH_CPU_PROFILE_FILE`, then waits for what it prints. */
async function toggleProfile(proc: Started | undefined, printed: RegExp): Promise<void> {
  if (!proc?.child.pid) return;
  process.kill(proc.child.pid, 'SIGUSR2');
  await waitForOutput(proc, printed, 30_000);
}

interface CannonRun {
  rps: number;
  total: number;
  bad: number;
}

/** autocannon, 50 connections; each request takes the next of `commands` (one: always that). */
async function cannon(
  origin: string,
  headers: Record<string, string>,
  commands: readonly BenchCommand[],
  seconds: number,
): Promise<CannonRun> {
  let next = 0;
  const first = commands[0];
  if (!first) throw new Error('no command to GET');
  const result = await autocannon({
    url: origin,
    connections: 50,
    duration: seconds,
    headers,
    requests: [
      {
        method: 'GET',
        path: `/api${statusPath(first)}`,
        setupRequest: (request) => ({
          ...request,
          path: `/api${statusPath(commands[next++ % commands.length] ?? first)}`,
        }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * 50 connections (autocannon) on status GETs of the distinct commands through the BFF and through
 * the reference proxy, alternating runs; ratio of requests per second, median of the rounds. The
 * Fastify floor runs in each round too, as context.
 */
export async function measureThroughput(
  stack: Stack,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const distinct = distinctOf(stack);
  const { origin: refOrigin, pid: refPid } = referenceOf(stack);
  const bffHeaders = { cookie: stack.session.cookie };
  const seconds = options.smoke ? 1 : 5;
  const warm = options.smoke ? 1 : 2;
  await cannon(stack.bffOrigin, bffHeaders, distinct.commands, warm);
  await cannon(refOrigin, {}, distinct.commands, warm);
  const ratios: number[] = [];
  const references: number[] = [];
  const floorRatios: number[] = [];
  let bad = 0;
  let bffTotal = 0;
  let bffUpstream = 0;
  let refTotal = 0;
  const cpu = { bff: 0, ref: 0, known: true };
  const cpuDuring = async (pid: number | undefined, run: () => Promise<CannonRun>) => {
    const before = await processCpuMs(pid);
    const result = await run();
    const after = await processCpuMs(pid);
    if (before === undefined || after === undefined) cpu.known = false;
    return { result, cpuMs: (after ?? 0) - (before ?? 0) };
  };
  await toggleProfile(distinct.profiled, /PROFILING/);
  for (let round = 0; round < (options.smoke ? 1 : 3); round++) {
    let bff: CannonRun | undefined;
    bffUpstream += await upstreamStatusCalls(stack, async () => {
      const run = await cpuDuring(stack.bffPid, () =>
        cannon(stack.bffOrigin, bffHeaders, distinct.commands, seconds),
      );
      bff = run.result;
      cpu.bff += run.cpuMs;
    });
    const refRun = await cpuDuring(refPid, () => cannon(refOrigin, {}, distinct.commands, seconds));
    const ref = refRun.result;
    cpu.ref += refRun.cpuMs;
    refTotal += ref.total;
    const floor = stack.floorOrigin
      ? await cannon(stack.floorOrigin, {}, distinct.commands, seconds)
      : undefined;
    if (!bff) throw new Error('autocannon gave no result');
    bad += bff.bad + ref.bad + (floor?.bad ?? 0);
    if (floor) floorRatios.push(floor.rps / ref.rps);
    bffTotal += bff.total;
    ratios.push(bff.rps / ref.rps);
    references.push(ref.rps);
  }
  await toggleProfile(distinct.profiled, /PROFILE WRITTEN/);
  const ratio = median(ratios);
  const reference = median(references);
  const perRequest = (ms: number, total: number) => `${Math.round((1000 * ms) / total)} µs`;
  const cpuNote = cpu.known
    ? ` CPU per request (process user+system over the runs): BFF ${perRequest(cpu.bff, bffTotal)}, reference ${perRequest(cpu.ref, refTotal)}`
    : '';
  const result = judged(PROXY_FIGURES.throughput, ratio, {
    reference,
    ratio,
    reason:
      `reference: node:http + undici Pool proxy, ${Math.round(reference)} req/s; BFF ${Math.round(ratio * reference)} req/s` +
      ` on ${distinct.commands.length} distinct commands its read model knows, ${pct(bffUpstream / bffTotal)} of its ${bffTotal} requests reached the sandbox` +
      (cpuNote ? `;${cpuNote}` : ''),
  });
  if (bad > 0) {
    result.ok = false;
    result.reason = `${bad} non-2xx, errors or timeouts under load; ${result.reason}`;
  }
  if (floorRatios.length === 0) return [result];
  const floorRatio = median(floorRatios);
  return [
    result,
    reported(PROXY_FIGURES.floorThroughput, floorRatio, {
      reference,
      why: 'context for the throughput ratio: the most any Fastify BFF could reach here',
      reason:
        `a Fastify server that only answers the status path with the BFF's bytes (bench/servers/fastify-floor.ts): ${Math.round(floorRatio * reference)} req/s,` +
        ` ${floorRatio.toFixed(2)}x the reference; the BFF reaches ${(ratio / floorRatio).toFixed(2)} of it. What the framework and the socket cost on this machine bounds the BFF's ratio`,
    }),
  ];
}
