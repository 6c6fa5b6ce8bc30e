/**
 * BFF figures: token requests per burst on an expired token and upstream calls per
 * browser poll here; added latency and throughput in `bff-proxy.ts`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StatusRecordSchema, isFinalStatus } from '#domain/command.ts';
import type { BenchOptions, Stack } from '../lib/context.ts';
import { bffCall, sandboxAdmin, signIn } from '../lib/http.ts';
import { judged, notMeasured, type BenchResult, type Figure } from '../lib/results.ts';
import { median } from '../lib/stats.ts';
import { PROXY_FIGURES } from './bff-proxy.ts';

export const BFF_FIGURES = {
  ...PROXY_FIGURES,
  tokenBurst: { name: 'bff.token_requests_per_burst', unit: 'requests', budget: 1 },
  polls: { name: 'bff.upstream_per_client_polls', unit: 'x', budget: 0.1 },
  pollsAfterFinal: { name: 'bff.polls_after_final', unit: 'requests', budget: 0 },
} satisfies Record<string, Figure>;

const TABS = 10;

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
