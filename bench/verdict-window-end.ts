/**
 * What a window ending on many devices at once costs the BFF's verification (docs/architecture.md,
 * Verification): `npx tsx bench/verdict-window-end.ts [devices]` (default 10,000) plans one
 * two-hour command per device, all ending together, moves the upstream clock one sampling period
 * past the end, and times the queue's claims, its pg-boss jobs and each device's verification to
 * the last verdict stored. The upstream is in process (each telemetry page answered at once with
 * 120 samples, a device in 20 not following), so the figure is the BFF's own work on PGlite: its
 * database, pg-boss and the rules, not the network or the vendor.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { StatusRecord } from '#domain/command.ts';
import type { TelemetrySample } from '#domain/telemetry.ts';
import { openDatabase } from '#infra/database.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '#server/budget/device-budget-store.ts';
import { JobQueueHost } from '#server/db/job-queue.ts';
import { openBffStorage } from '#server/db/storage.ts';
import type { ReadModel } from '#server/read-model/read-model.ts';
import { BudgetedTelemetry } from '#server/telemetry/budgeted-telemetry.ts';
import { CommandVerification } from '#server/telemetry/command-verification.ts';
import { VerdictQueue } from '#server/telemetry/verdict-queue.ts';
import { VerdictStore } from '#server/telemetry/verdict-store.ts';
import type { UpstreamCaller } from '#server/upstream/upstream-caller.ts';

const DEVICES = Number(process.argv[2] ?? 10_000);
const MINUTE = 60_000;
const START = Date.parse('2026-11-29T16:00:00Z');
const END = START + 120 * MINUTE;
const account = { region: 'eu', clientId: 'bench' } as const;
const caller: UpstreamCaller = { id: 'b', region: 'eu', clientId: 'bench', clientSecret: 's' };
const log = pino({ level: 'warn' });

const dataDir = await mkdtemp(join(tmpdir(), 'verdict-bench-'));
const handle = await openDatabase({ dataDir });
await openBffStorage({ database: handle });
await handle.db.execute(
  `insert into bff.read_model_accounts (region, client_id, secret_ciphertext, seen_at) values ('eu', 'bench', 'sealed', now())`,
);
let nowMs = START - 10 * MINUTE;
let calls = 0;
const budget = new DeviceBudgetStore(handle.db, deviceBudgetsOf({ eu: 2, au: 2 }));
const store = new VerdictStore(handle.db);
const verification = new CommandVerification({
  store,
  model: {
    callerOf: () => caller,
    store: { db: handle.db, commandsByIds: async () => new Map() },
  } as unknown as ReadModel,
  telemetry: new BudgetedTelemetry({
    budget,
    upstreamNow: () => nowMs,
    upstream: {
      telemetryPage: async (_caller, range) => {
        calls += 1;
        const following = !range.deviceId.endsWith('0') || range.deviceId.endsWith('00');
        const samples: TelemetrySample[] = [];
        for (let atMs = range.startMs; atMs < range.endMs; atMs += MINUTE)
          samples.push({
            atMs,
            batteryPowerW: following ? 3000 : -500,
            socPercent: 60 - (atMs - START) / (4 * MINUTE),
            // The household's load moves the grid: nothing a limit held.
            gridPowerW: -2000 + ((atMs / MINUTE) % 5) * 400,
            pvPowerW: 500,
          });
        return { samples, more: false };
      },
      latestDataOf: () => Promise.reject(new Error('not used')),
      alarmsPage: () => Promise.reject(new Error('not used')),
      configuration: async () => ({ cutoffs: {}, siteLimits: {} }),
    },
  }),
  devices: async () => new Map(),
  now: () => nowMs,
  log,
});
const host = new JobQueueHost(handle, log);
const queue = new VerdictQueue({
  handle,
  host,
  verification,
  upstreamNow: () => nowMs,
  log,
  // The bench claims itself; the timer would only add claims of its own.
  options: { recheckIntervalMs: 60 * 60_000, pollingIntervalSeconds: 0.5 },
});
await queue.start();

const record = (i: number): StatusRecord => ({
  id: `CMD-${i}`,
  deviceId: `BAT-${String(i).padStart(5, '0')}`,
  powerControl: { targetBatteryPowerW: 3000 },
  startTime: new Date(START).toISOString(),
  endTime: new Date(END).toISOString(),
  status: 'completed',
  receivedAt: new Date(START - 10 * MINUTE).toISOString(),
  startedAt: new Date(START).toISOString(),
  completedAt: new Date(END).toISOString(),
});
let started = performance.now();
for (let i = 0; i < DEVICES; i += 1000) {
  const records = Array.from({ length: Math.min(1000, DEVICES - i) }, (_, j) => record(i + j));
  await verification.plan({ account, records, ledgerEntries: [] });
}
const planMs = performance.now() - started;

nowMs = END + MINUTE;
started = performance.now();
const claimed = await queue.recheck();
const claimMs = performance.now() - started;
for (;;) {
  const { verified } = await store.countOf(account);
  if (verified >= DEVICES) break;
  await new Promise((resolve) => setTimeout(resolve, 1000));
}
const totalMs = performance.now() - started;
const counts = await handle.db.execute(
  `select verdict->>'verdict' as verdict, count(*)::int as n from bff.command_verdicts group by 1 order by 1`,
);
console.log(
  JSON.stringify(
    {
      devices: DEVICES,
      planMs: Math.round(planMs),
      claimed,
      claimMs: Math.round(claimMs),
      jobs: queue.counts.jobs,
      telemetryCalls: calls,
      untilLastVerdictMs: Math.round(totalMs),
      outcomes: queue.counts.outcomes,
      verdicts: (counts as unknown as { rows: unknown[] }).rows,
    },
    null,
    2,
  ),
);
await queue.stop();
await host.stop();
await handle.close();
await rm(dataDir, { recursive: true, force: true });
