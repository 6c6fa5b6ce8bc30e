/**
 * BFF figures of issue 8: added latency, throughput against a minimal pass-through proxy, token
 * requests per burst on an expired token, and upstream calls per browser poll.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { Client } from 'undici';
import { StatusRecordSchema, isFinalStatus } from '../../src/domain/command.ts';
import type { BenchOptions, Stack } from '../lib/context.ts';
import { bffCall, sandboxAdmin, sandboxToken, signIn } from '../lib/http.ts';
import { startTsx, waitForOutput, freePort } from '../lib/processes.ts';
import { judged, notMeasured, type BenchResult, type Figure } from '../lib/results.ts';
import { median, percentile } from '../lib/stats.ts';

export const BFF_FIGURES = {
  addedP50: { name: 'bff.added_p50_ms', unit: 'ms', budget: 0.25 },
  addedP99: { name: 'bff.added_p99_ms', unit: 'ms', budget: 1.5 },
  throughput: { name: 'bff.throughput_ratio_vs_reference', unit: 'x', budget: 0.8, kind: 'min' },
  tokenBurst: { name: 'bff.token_requests_per_burst', unit: 'requests', budget: 1 },
  polls: { name: 'bff.upstream_per_client_polls', unit: 'x', budget: 0.1 },
  pollsAfterFinal: { name: 'bff.polls_after_final', unit: 'requests', budget: 0 },
} satisfies Record<string, Figure>;

const TABS = 10;

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

/**
 * One keep-alive connection each, sequential `GET .../commands/{cid}`, alternating direct and
 * through the BFF request by request; added = BFF percentile minus direct percentile, median of
 * the rounds.
 */
export async function measureAddedLatency(
  stack: Stack,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const command = stack.commands[0];
  if (!command) throw new Error('no bench command');
  const path = `/devices/${command.deviceId}/commands/${command.commandId}`;
  const token = await sandboxToken(stack.sandboxOrigin);
  const direct = new Client(stack.sandboxOrigin, { pipelining: 1 });
  const viaBff = new Client(stack.bffOrigin, { pipelining: 1 });
  const directHeaders = { authorization: `Bearer ${token}` };
  const bffHeaders = { cookie: stack.session.cookie };
  const rounds = options.smoke ? 1 : 3;
  const perRound = options.smoke ? 50 : 1000;
  const deadline = Date.now() + (options.smoke ? 15_000 : 90_000);
  try {
    for (let i = 0; i < (options.smoke ? 10 : 200); i++) {
      await timedGet(direct, `/eu${path}`, directHeaders);
      await timedGet(viaBff, `/api${path}`, bffHeaders);
    }
    const added50: number[] = [];
    const added99: number[] = [];
    const direct50: number[] = [];
    const bff50: number[] = [];
    for (let round = 0; round < rounds && Date.now() < deadline; round++) {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < perRound && Date.now() < deadline; i++) {
        a.push(await timedGet(direct, `/eu${path}`, directHeaders));
        b.push(await timedGet(viaBff, `/api${path}`, bffHeaders));
      }
      direct50.push(percentile(a, 50));
      bff50.push(percentile(b, 50));
      added50.push(percentile(b, 50) - percentile(a, 50));
      added99.push(percentile(b, 99) - percentile(a, 99));
    }
    const reference = median(direct50);
    return [
      judged(BFF_FIGURES.addedP50, median(added50), {
        reference,
        ratio: median(bff50) / reference,
        reason: `reference: direct p50 to the sandbox; ${added50.length} rounds of ${perRound} interleaved GETs`,
      }),
      judged(BFF_FIGURES.addedP99, median(added99), {
        reason: 'BFF p99 minus direct p99, one connection each',
      }),
    ];
  } finally {
    await Promise.all([direct.close(), viaBff.close()]);
  }
}

async function cannon(url: string, headers: Record<string, string>, seconds: number) {
  const result = await autocannon({ url, connections: 50, duration: seconds, headers });
  return { rps: result.requests.average, bad: result.non2xx + result.errors + result.timeouts };
}

/**
 * 50 connections (autocannon) on the same status GET through the BFF and through the reference
 * proxy, alternating runs; ratio of requests per second, median of the rounds.
 */
export async function measureThroughput(
  stack: Stack,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const command = stack.commands[0];
  if (!command) throw new Error('no bench command');
  const port = await freePort();
  const proxy = startTsx('reference proxy', `${options.root}/bench/servers/reference-proxy.ts`, {
    PORT: String(port),
    UPSTREAM_BASE_URL: `${stack.sandboxOrigin}/eu`,
    CLIENT_ID: 'demo-eu',
    CLIENT_SECRET: 'demo-eu-secret',
  });
  try {
    await waitForOutput(proxy, /READY \d+/, 30_000);
    const path = `/api/devices/${command.deviceId}/commands/${command.commandId}`;
    const bffUrl = `${stack.bffOrigin}${path}`;
    const refUrl = `http://127.0.0.1:${port}${path}`;
    const bffHeaders = { cookie: stack.session.cookie };
    const seconds = options.smoke ? 1 : 5;
    await cannon(bffUrl, bffHeaders, options.smoke ? 1 : 2);
    await cannon(refUrl, {}, options.smoke ? 1 : 2);
    const ratios: number[] = [];
    const references: number[] = [];
    let bad = 0;
    for (let round = 0; round < (options.smoke ? 1 : 3); round++) {
      const bff = await cannon(bffUrl, bffHeaders, seconds);
      const ref = await cannon(refUrl, {}, seconds);
      bad += bff.bad + ref.bad;
      ratios.push(bff.rps / ref.rps);
      references.push(ref.rps);
    }
    const ratio = median(ratios);
    const reference = median(references);
    const result = judged(BFF_FIGURES.throughput, ratio, {
      reference,
      ratio,
      reason: `reference: node:http + undici Pool proxy, ${Math.round(reference)} req/s; BFF ${Math.round(ratio * reference)} req/s`,
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

/**
 * 100 concurrent status GETs on a session whose token has just expired (sandbox `tokenTtlS`
 * fault at sign-in time), counting token requests at the sandbox.
 */
export async function measureTokenBurst(
  stack: Stack,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const admin = sandboxAdmin(stack.sandboxOrigin);
  try {
    await admin.stats();
    await admin.faults({ tokenTtlS: 1 });
  } catch (error) {
    return [
      notMeasured(
        BFF_FIGURES.tokenBurst,
        `sandbox stats or tokenTtlS fault not available: ${String(error).slice(0, 120)}`,
      ),
    ];
  }
  const results: number[] = [];
  const upstream: number[] = [];
  try {
    for (let round = 0; round < (options.smoke ? 1 : 3); round++) {
      await admin.faults({ tokenTtlS: 1 });
      const session = await signIn(stack.bffOrigin);
      // Later tokens live long, so only the renewal of the expired one is counted.
      await admin.faults({});
      await sleep(1_500);
      await admin.resetStats();
      const calls = Array.from({ length: 100 }, (_, i) => {
        const command = stack.commands[i % stack.commands.length];
        if (!command) throw new Error('no bench command');
        return bffCall(
          session,
          'GET',
          `/api/devices/${command.deviceId}/commands/${command.commandId}`,
        );
      });
      await Promise.all(calls);
      const stats = await admin.stats();
      results.push(stats.tokenRequests);
      upstream.push(stats.requests);
    }
  } finally {
    await admin.faults({});
  }
  return [
    judged(BFF_FIGURES.tokenBurst, median(results), {
      reason: `token requests at the sandbox per burst of 100 GETs, rounds: ${results.join(', ')} (upstream requests ${upstream.join(', ')})`,
    }),
  ];
}

async function pollAsTabs(stack: Stack, rounds: number, intervalMs: number): Promise<number> {
  let browserCalls = 0;
  const tab = async (index: number) => {
    await sleep((index * intervalMs) / TABS);
    for (let round = 0; round < rounds; round++) {
      const started = Date.now();
      await Promise.all(
        stack.commands.map(async (c) => {
          await bffCall(stack.session, 'GET', `/api/devices/${c.deviceId}/commands/${c.commandId}`);
          browserCalls++;
        }),
      );
      await sleep(Math.max(0, intervalMs - (Date.now() - started)));
    }
  };
  await Promise.all(Array.from({ length: TABS }, (_, i) => tab(i)));
  return browserCalls;
}

/**
 * N = 10 simulated tabs of one session poll the same 20 commands every second, staggered over
 * the interval; upstream calls counted by the sandbox. Then the commands are cancelled and the
 * tabs keep polling: upstream calls after a final status should be 0.
 */
export async function measurePolling(stack: Stack, options: BenchOptions): Promise<BenchResult[]> {
  const admin = sandboxAdmin(stack.sandboxOrigin);
  try {
    await admin.stats();
  } catch (error) {
    const reason = `sandbox stats not available: ${String(error).slice(0, 120)}`;
    return [
      notMeasured(BFF_FIGURES.polls, reason),
      notMeasured(BFF_FIGURES.pollsAfterFinal, reason),
    ];
  }
  const rounds = options.smoke ? 1 : 5;
  await admin.resetStats();
  const browserCalls = await pollAsTabs(stack, rounds, 1_000);
  const upstream = (await admin.stats()).requests;
  const polls = judged(BFF_FIGURES.polls, upstream / browserCalls, {
    reason: `${upstream} upstream calls for ${browserCalls} browser polls (${TABS} tabs, ${stack.commands.length} commands, 1 s interval); budget 1/N`,
  });

  for (const c of stack.commands)
    await bffCall(
      stack.session,
      'PUT',
      `/api/devices/${c.deviceId}/commands/${c.commandId}/cancel`,
    );
  const deadline = Date.now() + 15_000;
  for (const c of stack.commands) {
    for (;;) {
      const record = StatusRecordSchema.parse(
        await bffCall(stack.session, 'GET', `/api/devices/${c.deviceId}/commands/${c.commandId}`),
      );
      if (isFinalStatus(record.status)) break;
      if (Date.now() > deadline)
        throw new Error(`command ${c.commandId} not final 15 s after cancel`);
      await sleep(250);
    }
  }
  await admin.resetStats();
  const afterFinalCalls = await pollAsTabs(stack, options.smoke ? 1 : 3, 1_000);
  const afterFinal = (await admin.stats()).requests;
  return [
    polls,
    judged(BFF_FIGURES.pollsAfterFinal, afterFinal, {
      reason: `${afterFinal} upstream calls for ${afterFinalCalls} browser polls of cancelled commands`,
    }),
  ];
}
