/**
 * The BFF's proxy figures of issue 8, added latency and throughput, measured on the BFF started
 * with `STATUS_REUSE_MS=0` and on distinct command IDs, so every BFF request reaches the sandbox
 * as every direct and reference-proxy request does. The BFF as configured for production (1 s
 * status reuse per client, issue 4) is measured alongside on one command, for context only: its
 * figures mostly measure that reuse.
 */
import autocannon from 'autocannon';
import { Client } from 'undici';
import type { BenchCommand, BenchOptions, Stack } from '../lib/context.ts';
import { sandboxAdmin, sandboxToken } from '../lib/http.ts';
import { freePort, startTsx, waitForOutput, type Started } from '../lib/processes.ts';
import { processCpuMs } from '../lib/cpu-time.ts';
import { judged, type BenchResult, type Figure } from '../lib/results.ts';
import { median, percentile } from '../lib/stats.ts';

export const PROXY_FIGURES = {
  addedP50: { name: 'bff.added_p50_ms', unit: 'ms', budget: 0.25 },
  addedP99: { name: 'bff.added_p99_ms', unit: 'ms', budget: 1.5 },
  throughput: { name: 'bff.throughput_ratio_vs_reference', unit: 'x', budget: 0.8, kind: 'min' },
} satisfies Record<string, Figure>;

/** The sandbox's stats key of the status route (`GET /_sandbox/stats`, `byRoute`). */
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

function bareOf(stack: Stack): NonNullable<Stack['bare']> {
  if (!stack.bare || stack.bare.commands.length === 0)
    throw new Error('no BFF without status reuse, or no distinct commands');
  return stack.bare;
}

function firstCommand(stack: Stack): BenchCommand {
  const command = stack.commands[0];
  if (!command) throw new Error('no bench command');
  return command;
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

interface LatencyRound {
  added50: number;
  added99: number;
  direct50: number;
  bff50: number;
}

const latencyRound = (direct: number[], bff: number[]): LatencyRound => ({
  added50: percentile(bff, 50) - percentile(direct, 50),
  added99: percentile(bff, 99) - percentile(direct, 99),
  direct50: percentile(direct, 50),
  bff50: percentile(bff, 50),
});

/**
 * One keep-alive connection each, sequential status GETs alternating direct and through the BFF
 * request by request, the same distinct command on both sides, next command each pair; added =
 * BFF percentile minus direct percentile, median of the rounds. Then the same against the
 * production-configured BFF on one command (reused answers), for the reason only.
 */
export async function measureAddedLatency(
  stack: Stack,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const bare = bareOf(stack);
  const cachedCommand = firstCommand(stack);
  const token = await sandboxToken(stack.sandboxOrigin);
  const direct = new Client(stack.sandboxOrigin, { pipelining: 1 });
  const viaBare = new Client(bare.bffOrigin, { pipelining: 1 });
  const viaCached = new Client(stack.bffOrigin, { pipelining: 1 });
  const directHeaders = { authorization: `Bearer ${token}` };
  const rounds = options.smoke ? 1 : 3;
  const perRound = options.smoke ? 50 : 1000;
  const deadline = Date.now() + (options.smoke ? 15_000 : 120_000);
  let next = 0;
  const nextCommand = () => bare.commands[next++ % bare.commands.length] as BenchCommand;
  const pair = async (bff: Client, cookie: string, command: BenchCommand) => {
    const path = statusPath(command);
    const a = await timedGet(direct, `/eu${path}`, directHeaders);
    const b = await timedGet(bff, `/api${path}`, { cookie });
    return [a, b] as const;
  };
  try {
    for (let i = 0; i < (options.smoke ? 10 : 200); i++) {
      await pair(viaBare, bare.session.cookie, nextCommand());
      await pair(viaCached, stack.session.cookie, cachedCommand);
    }
    const honest: LatencyRound[] = [];
    const cached: LatencyRound[] = [];
    let bffCalls = 0;
    let upstream = 0;
    for (let round = 0; round < rounds && Date.now() < deadline; round++) {
      const a: number[] = [];
      const b: number[] = [];
      upstream += await upstreamStatusCalls(stack, async () => {
        for (let i = 0; i < perRound && Date.now() < deadline; i++) {
          const [d, p] = await pair(viaBare, bare.session.cookie, nextCommand());
          a.push(d);
          b.push(p);
        }
      });
      bffCalls += b.length;
      upstream -= a.length;
      honest.push(latencyRound(a, b));
      const c: number[] = [];
      const e: number[] = [];
      for (let i = 0; i < perRound && Date.now() < deadline; i++) {
        const [d, p] = await pair(viaCached, stack.session.cookie, cachedCommand);
        c.push(d);
        e.push(p);
      }
      if (c.length > 0) cached.push(latencyRound(c, e));
    }
    const reference = median(honest.map((r) => r.direct50));
    const reached = `${pct(upstream / bffCalls)} of the ${bffCalls} BFF GETs reached the sandbox`;
    const setup = `BFF with STATUS_REUSE_MS=0, ${bare.commands.length} distinct commands`;
    const context = (key: 'added50' | 'added99') =>
      cached.length === 0
        ? ''
        : `; production BFF (1 s reuse, one command) for context: ${median(cached.map((r) => r[key])).toFixed(3)} ms`;
    return [
      judged(PROXY_FIGURES.addedP50, median(honest.map((r) => r.added50)), {
        reference,
        ratio: median(honest.map((r) => r.bff50)) / reference,
        reason: `reference: direct p50 to the sandbox; ${setup}, ${honest.length} rounds of ${perRound} interleaved GETs; ${reached}${context('added50')}`,
      }),
      judged(PROXY_FIGURES.addedP99, median(honest.map((r) => r.added99)), {
        reason: `BFF p99 minus direct p99, one connection each; ${setup}; ${reached}${context('added99')}`,
      }),
    ];
  } finally {
    await Promise.all([direct.close(), viaBare.close(), viaCached.close()]);
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
 * 50 connections (autocannon) on status GETs of the distinct commands through the BFF without
 * reuse and through the reference proxy, alternating runs; ratio of requests per second, median
 * of the rounds. The production-configured BFF on one command runs in each round for the reason.
 */
export async function measureThroughput(
  stack: Stack,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const bare = bareOf(stack);
  const cachedCommands = [firstCommand(stack)];
  const port = await freePort();
  const proxy = startTsx('reference proxy', `${options.root}/bench/servers/reference-proxy.ts`, {
    PORT: String(port),
    UPSTREAM_BASE_URL: `${stack.sandboxOrigin}/eu`,
    CLIENT_ID: 'demo-eu',
    CLIENT_SECRET: 'demo-eu-secret',
  });
  try {
    await waitForOutput(proxy, /READY \d+/, 30_000);
    const refOrigin = `http://127.0.0.1:${port}`;
    const bareHeaders = { cookie: bare.session.cookie };
    const cachedHeaders = { cookie: stack.session.cookie };
    const seconds = options.smoke ? 1 : 5;
    const warm = options.smoke ? 1 : 2;
    await cannon(bare.bffOrigin, bareHeaders, bare.commands, warm);
    await cannon(refOrigin, {}, bare.commands, warm);
    await cannon(stack.bffOrigin, cachedHeaders, cachedCommands, warm);
    const ratios: number[] = [];
    const references: number[] = [];
    const cachedRatios: number[] = [];
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
    await toggleProfile(bare.profiled, /PROFILING/);
    for (let round = 0; round < (options.smoke ? 1 : 3); round++) {
      let bff: CannonRun | undefined;
      bffUpstream += await upstreamStatusCalls(stack, async () => {
        const run = await cpuDuring(bare.pid, () =>
          cannon(bare.bffOrigin, bareHeaders, bare.commands, seconds),
        );
        bff = run.result;
        cpu.bff += run.cpuMs;
      });
      const refRun = await cpuDuring(proxy.child.pid, () =>
        cannon(refOrigin, {}, bare.commands, seconds),
      );
      const ref = refRun.result;
      cpu.ref += refRun.cpuMs;
      refTotal += ref.total;
      const cached = await cannon(stack.bffOrigin, cachedHeaders, cachedCommands, seconds);
      if (!bff) throw new Error('autocannon gave no result');
      bad += bff.bad + ref.bad + cached.bad;
      bffTotal += bff.total;
      ratios.push(bff.rps / ref.rps);
      references.push(ref.rps);
      cachedRatios.push(cached.rps / ref.rps);
    }
    await toggleProfile(bare.profiled, /PROFILE WRITTEN/);
    const ratio = median(ratios);
    const reference = median(references);
    const cachedRatio = median(cachedRatios);
    const perRequest = (ms: number, total: number) => `${Math.round((1000 * ms) / total)} µs`;
    const cpuNote = cpu.known
      ? ` CPU per request (process user+system over the runs): BFF ${perRequest(cpu.bff, bffTotal)}, reference ${perRequest(cpu.ref, refTotal)};`
      : '';
    const result = judged(PROXY_FIGURES.throughput, ratio, {
      reference,
      ratio,
      reason:
        `reference: node:http + undici Pool proxy, ${Math.round(reference)} req/s; BFF with STATUS_REUSE_MS=0 ${Math.round(ratio * reference)} req/s` +
        ` on ${bare.commands.length} distinct commands, ${pct(bffUpstream / bffTotal)} of its ${bffTotal} requests reached the sandbox;` +
        cpuNote +
        ` production BFF (1 s reuse, one command) for context: ${cachedRatio.toFixed(2)}x, ${Math.round(cachedRatio * reference)} req/s`,
    });
    if (bad > 0) {
      result.ok = false;
      result.reason = `${bad} non-2xx, errors or timeouts under load; ${result.reason}`;
    }
    return [result];
  } finally {
    await proxy.stop();
  }
}
