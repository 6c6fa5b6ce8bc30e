/**
 * Fleet dispatch figures (docs/architecture.md, Budgets: fleet dispatch): a job of 1,000 devices
 * (fixture `large`, 20 sites of 50) in 20 batches, its overhead per batch against a bare batch
 * POST through the same BFF, and the upstream calls a job page's polls cost per batch and
 * interval. The smoke runs 60 devices of the demo fixture in 20 batches of 3.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TZDate } from '@date-fns/tz';
import Papa from 'papaparse';
import { request } from 'undici';
import {
  checkPlan,
  groupPlanIntoBatches,
  type PlanDevice,
  type PlanRowInput,
} from '#domain/dispatch-plan.ts';
import type { WindowedCommand } from '#domain/overlap.ts';
import { FleetJobSchema, type FleetJob } from '#domain/fleet-job.ts';
import type { BenchOptions, Stack } from '../lib/context.ts';
import { bffCall, sandboxAdmin } from '../lib/http.ts';
import { judged, type BenchResult, type Figure } from '../lib/results.ts';
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

/** The three fleet figures: job overhead, page polls, plan check and preview. */
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
        const response = await request(`${session.origin}/api/batches`, {
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
    measurePlanCheck(options),
  );
  return results;
}

const PLAN_ROWS = 10_000;
const PLAN_DEVICES = 1_000;
const PLAN_ZONE = 'Europe/Berlin';

/**
 * A plan file of 10,000 rows (1,000 devices of `large`, 10 windows each, a row in 50 overlapping
 * the same device's row before it) with its start in UTC and its end on the site's clock, as CSV.
 */
function planCsv(baseMs: number): string {
  const lines = ['deviceId,start (UTC),end (site),targetBatteryPowerW'];
  for (let i = 0; i < PLAN_ROWS; i += 1) {
    const device = i % PLAN_DEVICES;
    const slot = Math.floor(i / PLAN_DEVICES);
    const startMs = baseMs + slot * HOUR_MS - ((device + slot) % 50 === 49 ? (HOUR_MS * 3) / 4 : 0);
    const end = new TZDate(startMs + HOUR_MS / 2, PLAN_ZONE);
    lines.push(
      [
        `BAT-EU-${201 + Math.floor(device / 50)}-${String((device % 50) + 1).padStart(3, '0')}`,
        new Date(startMs).toISOString(),
        `${end.getFullYear()}-${pad(end.getMonth() + 1)}-${pad(end.getDate())}T${pad(end.getHours())}:${pad(end.getMinutes())}`,
        String(1000 + (i % 7) * 100),
      ].join(','),
    );
  }
  return lines.join('\r\n');
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DDTHH:MM` on `timeZone`'s clock, epoch ms; NaN when it is not that. */
function parseSiteTime(cell: string, timeZone: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(cell);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi] = m.map(Number);
  return new TZDate(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, timeZone).getTime();
}

/**
 * 10,000 plan rows parsed, checked (checkPlan against 1,000 devices and an active command on
 * every tenth) and previewed (grouped into batches, ghost bars per accepted row), against a plain
 * parse of the same file; median of 3 rounds, interleaved. In process: the check is the same
 * code the page runs.
 */
function measurePlanCheck(options: BenchOptions): BenchResult {
  const baseMs = Math.ceil(Date.now() / HOUR_MS) * HOUR_MS + 48 * HOUR_MS;
  const csv = planCsv(baseMs);
  const capabilities = { targetBatteryPowerW: { min: -5000, max: 5000 } };
  const devices = new Map<string, PlanDevice>();
  const commands = new Map<string, WindowedCommand[]>();
  for (let device = 0; device < PLAN_DEVICES; device += 1) {
    const deviceId = `BAT-EU-${201 + Math.floor(device / 50)}-${String((device % 50) + 1).padStart(3, '0')}`;
    devices.set(deviceId, { capabilities, timeZone: PLAN_ZONE });
    if (device % 10 === 0)
      commands.set(deviceId, [
        {
          status: 'received',
          startTime: new Date(baseMs + 5 * HOUR_MS).toISOString(),
          endTime: new Date(baseMs + 5 * HOUR_MS + HOUR_MS / 4).toISOString(),
        },
      ]);
  }
  const parse = () =>
    Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true });
  let accepted = 0;
  let refused = 0;
  let batches = 0;
  const checkAndPreview = () => {
    const parsed = parse();
    const rows: PlanRowInput[] = parsed.data.map((row, index) => ({
      line: index + 2,
      deviceId: row.deviceId ?? '',
      start: row['start (UTC)'] ?? '',
      end: row['end (site)'] ?? '',
      controls: { targetBatteryPowerW: row.targetBatteryPowerW ?? '' },
    }));
    const check = checkPlan(rows, {
      devices,
      commands,
      nowMs: Date.now(),
      parseTime: (cell, column, timeZone) =>
        column === 'start' ? Date.parse(cell) : parseSiteTime(cell, timeZone),
    });
    const ghostBars = check.accepted.map((row) => ({
      deviceId: row.deviceId,
      startMs: Date.parse(row.command.startTime),
      endMs: Date.parse(row.command.endTime),
    }));
    accepted = ghostBars.length;
    refused = check.refused.length;
    batches = groupPlanIntoBatches(check.accepted).length;
  };
  const time = (run: () => unknown) => {
    const started = performance.now();
    run();
    return performance.now() - started;
  };
  const parseMs: number[] = [];
  const fullMs: number[] = [];
  for (let round = 0; round < (options.smoke ? 1 : 3); round += 1) {
    parseMs.push(time(parse));
    fullMs.push(time(checkAndPreview));
  }
  const full = median(fullMs);
  const plain = median(parseMs);
  return judged(FLEET_FIGURES.planCheck, full, {
    reference: plain,
    ratio: full / plain,
    reason: `${PLAN_ROWS} rows parsed, checked and previewed in ${Math.round(full)} ms (${accepted} accepted, ${refused} refused, ${batches} batches); a plain parse of the same file ${Math.round(plain)} ms`,
  });
}
