/**
 * Fleet dispatch figures (docs/architecture.md, Budgets: fleet dispatch): a job of 1,000 devices
 * (fixture `large`, 20 sites of 50) in 20 batches, its overhead per batch against a bare batch
 * POST through the same BFF, and the upstream calls a job page's polls cost per batch and
 * interval. The smoke runs 60 devices of the demo fixture in 20 batches of 3.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { FleetJobSchema, type FleetJob } from '../../src/domain/fleet-job.ts';
import type { BenchOptions, Stack } from '../lib/context.ts';
import { bffCall, sandboxAdmin } from '../lib/http.ts';
import { judged, notMeasured, type BenchResult, type Figure } from '../lib/results.ts';
import { interleaved, median } from '../lib/stats.ts';

export const FLEET_FIGURES = {
  overheadRatio: { name: 'fleet.job_overhead_per_batch_ratio', unit: 'x', budget: 2 },
  pagePolls: { name: 'fleet.page_upstream_per_batch_interval', unit: 'calls', budget: 1 },
  planCheck: { name: 'fleet.plan_10k_check_preview', unit: 'ms', budget: 2_000 },
} satisfies Record<string, Figure>;

const BATCHES = 20;
/** The job's rate: one batch per 100 ms, so the wait between batches is known exactly. */
const BATCHES_PER_MINUTE = 600;
const INTERVAL_MS = 60_000 / BATCHES_PER_MINUTE;
const HOUR_MS = 3_600_000;
/** How often the page polls (the SPA's `FLEET_JOB_POLL_MS`) and the BFF's refresh interval. */
const PAGE_POLL_MS = 2_000;

/** The sites and devices per batch: `large` has PLANT-EU-201..220 of 50 devices each. */
function fleetOf(smoke: boolean): { siteIds: string[]; batchSize: number; batches: string[][] } {
  if (smoke) {
    const devices = Array.from(
      { length: 60 },
      (_, i) => `BAT-EU-100-${String(i + 1).padStart(2, '0')}`,
    );
    return {
      siteIds: ['PLANT-EU-100'],
      batchSize: 3,
      batches: Array.from({ length: BATCHES }, (_, b) => devices.slice(b * 3, b * 3 + 3)),
    };
  }
  const siteIds = Array.from({ length: BATCHES }, (_, i) => `PLANT-EU-${201 + i}`);
  return {
    siteIds,
    batchSize: 50,
    batches: siteIds.map((_, s) =>
      Array.from({ length: 50 }, (_, d) => `BAT-EU-${201 + s}-${String(d + 1).padStart(3, '0')}`),
    ),
  };
}

const command = (startMs: number) => ({
  powerControl: { targetBatteryPowerW: 2000 },
  startTime: new Date(startMs).toISOString(),
  endTime: new Date(startMs + HOUR_MS / 2).toISOString(),
});

/** Both figures that exist; the plan figure is reported not measured (plans are not built yet). */
export async function measureFleet(stack: Stack, options: BenchOptions): Promise<BenchResult[]> {
  const { session } = stack;
  const fleet = fleetOf(options.smoke);
  for (const siteId of fleet.siteIds)
    await bffCall(session, 'POST', '/api/sites', { siteId }, 200, 201);
  // Days ahead, an hour per round and kind, clear of the other bench commands.
  const base = Math.ceil(Date.now() / HOUR_MS) * HOUR_MS + 20 * 24 * HOUR_MS;
  const rounds = options.smoke ? 1 : 3;

  let lastJob: FleetJob | undefined;
  const samples = await interleaved(
    rounds,
    async (round) => {
      const window = command(base + round * 2 * HOUR_MS);
      const times: number[] = [];
      for (const devices of fleet.batches) {
        // As the SPA sends it: with an Idempotency-Key, so the ledger looks the key up too.
        const started = performance.now();
        const response = await request(`${session.origin}/api/devices/commands/batch`, {
          method: 'POST',
          headers: {
            cookie: session.cookie,
            'x-csrf': '1',
            origin: session.origin,
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body: JSON.stringify({ devices, command: window }),
        });
        await response.body.text();
        times.push(performance.now() - started);
        if (response.statusCode !== 202)
          throw new Error(`bare batch POST answered ${response.statusCode}`);
      }
      return median(times);
    },
    async (round) => {
      const window = command(base + (round * 2 + 1) * HOUR_MS);
      const started = Date.now();
      const created = FleetJobSchema.parse(
        await bffCall(
          session,
          'POST',
          '/api/fleet-jobs',
          {
            selection: { siteIds: fleet.siteIds },
            command: window,
            rollout: { batchSize: fleet.batchSize, batchesPerMinute: BATCHES_PER_MINUTE },
          },
          202,
        ),
      );
      let job = created;
      while (job.state !== 'completed') {
        if (job.state !== 'running')
          throw new Error(`fleet job ended ${job.state}: ${job.stopReason ?? ''}`);
        await sleep(50);
        job = FleetJobSchema.parse(
          await bffCall(session, 'GET', `/api/fleet-jobs/${job.jobId}`, undefined, 200),
        );
      }
      lastJob = job;
      const lastSentMs = Math.max(...job.batches.map((b) => Date.parse(b.sentAt ?? '')));
      // The job's own time per batch, without the waits its rate asks for between batches.
      return (lastSentMs - started - (job.batches.length - 1) * INTERVAL_MS) / job.batches.length;
    },
  );
  const bareMs = median(samples.a);
  const jobMs = median(samples.b);
  const results: BenchResult[] = [
    judged(FLEET_FIGURES.overheadRatio, jobMs / bareMs, {
      reference: bareMs,
      ratio: jobMs / bareMs,
      reason: `per batch of ${fleet.batchSize}: job ${Math.round(jobMs)} ms (rate waits of ${INTERVAL_MS} ms taken out), bare batch POST through the BFF and its ledger, with an Idempotency-Key as the SPA sends it, ${Math.round(bareMs)} ms; rounds job ${samples.b.map(Math.round).join(', ')}, bare ${samples.a.map(Math.round).join(', ')}`,
    }),
  ];

  // The job page's poll: 10 reads within one interval, then one after it, counted upstream.
  const admin = sandboxAdmin(stack.sandboxOrigin);
  if (!lastJob) throw new Error('no fleet job ran');
  const path = `/api/fleet-jobs/${lastJob.jobId}?refresh=statuses`;
  await sleep(PAGE_POLL_MS);
  await admin.resetStats();
  for (let i = 0; i < 10; i += 1) await bffCall(session, 'GET', path, undefined, 200);
  await sleep(PAGE_POLL_MS);
  await bffCall(session, 'GET', path, undefined, 200);
  const stats = await admin.stats();
  const statusCalls = Object.entries(stats.byRoute ?? {})
    .filter(([route]) => route.startsWith('eu GET /devices/:deviceId/commands/:commandId'))
    .reduce((sum, [, count]) => sum + count, 0);
  const perBatchInterval = statusCalls / (lastJob.batches.length * 2);
  results.push(
    judged(FLEET_FIGURES.pagePolls, perBatchInterval, {
      reason: `${statusCalls} upstream status calls for 11 page reads over 2 intervals of ${PAGE_POLL_MS} ms, ${lastJob.batches.length} batches`,
    }),
    notMeasured(FLEET_FIGURES.planCheck, 'dispatch plans from a file are not built yet'),
  );
  return results;
}
