/**
 * `npm run bench`: builds the production SPA, starts the sandbox (fixture `large`) and the BFF
 * on 127.0.0.1, measures every budget of `docs/architecture.md` ("Budgets") against its reference
 * in the same run, stops everything it started, writes `bench/results.json` and prints the same
 * as a table.
 * `--smoke`: one iteration, small counts, budgets not enforced (CI runs it so the harness cannot rot).
 * `--only <group>[,<group>]` (bff, fleet, bundle, page, budget, verify, webhooks, timeline, start): runs only those groups; the
 * other figures are written with `ok: null`, reason "not run (--only)".
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from '@playwright/test';
import { findChromium } from '../scripts/find-chromium.ts';
import { measureAddedLatency, measureThroughput } from './figures/bff-proxy.ts';
import { BFF_FIGURES, measurePolling, measureTokenBurst } from './figures/bff.ts';
import { BUDGET_FIGURES, BUDGET_FIGURES_BY_WIRE, measureBudget } from './figures/budget.ts';
import { BUNDLE_FIGURES, measureBundle } from './figures/bundle.ts';
import { FLEET_FIGURES, measureFleet } from './figures/fleet.ts';
import { OVERVIEW_PAGE_FIGURES, measureOverviewPage } from './figures/overview-page.ts';
import { PAGE_FIGURES, measurePage } from './figures/page.ts';
import { VERIFY_FIGURES, measureVerify, verifyDevicesOf } from './figures/verify.ts';
import { WEBHOOK_FIGURES, measureWebhooks, webhookChangesOf } from './figures/webhooks.ts';
import {
  START_FIGURES,
  measureStart,
  measureStartDay,
  measureStartPostgres,
} from './figures/start.ts';
import {
  TIMELINE_FIGURES,
  TIMELINE_PAGES,
  measureTimeline,
  timelineBuilt,
  timelineNotBuilt,
} from './figures/timeline.ts';
import { parseBenchArgs, type BenchGroup } from './lib/args.ts';
import { UNCAPPED_FRAME_ARGS, launchChromium } from './lib/browser.ts';
import { buildBenchPages, buildSpa } from './lib/build.ts';
import type { BenchOptions, Stack } from './lib/context.ts';
import { stopAll } from './lib/processes.ts';
import {
  formatTable,
  notMeasured,
  type BenchResult,
  type BudgetKind,
  type Figure,
} from './lib/results.ts';
import { startStack } from './lib/stack.ts';
import { serveStatic } from './servers/static.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = parseBenchArgs(process.argv.slice(2));
const { smoke } = args;
const wants = (...groups: BenchGroup[]) => groups.some((g) => args.groups.has(g));
const results: BenchResult[] = [];
const failures: string[] = [];
const log = (line: string) => console.log(line);

const ALL_FIGURES: Figure[] = [
  ...Object.values(BUNDLE_FIGURES),
  ...Object.values(PAGE_FIGURES),
  ...Object.values(OVERVIEW_PAGE_FIGURES),
  ...Object.values(TIMELINE_FIGURES),
  ...Object.values(BFF_FIGURES),
  ...Object.values(FLEET_FIGURES),
  ...Object.values(BUDGET_FIGURES),
  ...Object.values(VERIFY_FIGURES),
  ...Object.values(WEBHOOK_FIGURES),
  ...Object.values(START_FIGURES),
];

/** Runs one group of figures; an error marks them unmeasured with the error and fails the run. */
async function group(
  figures: Figure[],
  what: string,
  run: () => Promise<BenchResult[]>,
): Promise<void> {
  log(`- ${what}`);
  const startedAt = performance.now();
  try {
    results.push(...(await run()));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    failures.push(`${what}: ${message}`);
    log(`  FAILED: ${message.split('\n')[0]}`);
    results.push(
      ...figures.map((f) =>
        notMeasured(f, `bench error: ${message.split('\n')[0]?.slice(0, 200)}`),
      ),
    );
  }
  log(`  ${Math.round(performance.now() - startedAt)} ms`);
}

const missing = (figures: Figure[], reason: string) =>
  results.push(...figures.map((f) => notMeasured(f, reason)));

function chromiumVersion(): string {
  try {
    return execFileSync(findChromium(), ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'not found';
  }
}

/** The BFF figures, in the order they disturb the stack least (polling cancels the commands). */
async function measureBffGroup(stack: Stack, options: BenchOptions): Promise<void> {
  await group(
    [
      BFF_FIGURES.addedP50Ratio,
      BFF_FIGURES.addedP99Ratio,
      BFF_FIGURES.addedP50,
      BFF_FIGURES.addedP99,
    ],
    'BFF added latency',
    () => measureAddedLatency(stack, options),
  );
  await group([BFF_FIGURES.throughput], 'BFF throughput', () => measureThroughput(stack, options));
  await group([BFF_FIGURES.tokenBurst], 'token requests per burst', () =>
    measureTokenBurst(stack, options),
  );
  await group([BFF_FIGURES.polls, BFF_FIGURES.pollsAfterFinal], 'status polling', () =>
    measurePolling(stack, options),
  );
}

async function main(): Promise<void> {
  const startedAt = performance.now();
  const tmpDir = await mkdtemp(path.join(os.tmpdir(), 'powerdeck-bench-'));
  const options: BenchOptions = { smoke, root, tmpDir, log };
  const machine = {
    cpus: os.cpus().length,
    node: process.version,
    chromium: chromiumVersion(),
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
  log(`powerdeck bench${smoke ? ' (smoke: one iteration, budgets not enforced)' : ''}`);
  if (args.only) log(`only: ${[...args.groups].join(', ')}`);
  log(`machine: ${JSON.stringify(machine)}`);

  const buildDir = path.join(root, 'dist', 'bench');
  const spaDir = path.join(buildDir, 'spa');
  const referenceDir = path.join(buildDir, 'react-only');
  const timelineDir = path.join(buildDir, 'timeline-pages');
  const hasTimeline = timelineBuilt(root);
  let browser: Browser | undefined;
  const servers: Array<Awaited<ReturnType<typeof serveStatic>>> = [];
  try {
    const spaBuilt = existsSync(path.join(root, 'index.html'));
    const bffBuilt = existsSync(path.join(root, 'src/server/app.ts'));
    const sandboxBuilt = existsSync(path.join(root, 'src/sandbox/app.ts'));
    const pagesWanted = wants('bundle', 'page');
    log('- building the SPA and the reference pages');
    // The BFF serves STATIC_DIR; a BFF-only run does not need the SPA inside it.
    if (spaBuilt && pagesWanted) await buildSpa(root, spaDir);
    else await mkdir(spaDir, { recursive: true });
    if (pagesWanted) await buildBenchPages(root, 'react-only', ['index.html'], referenceDir);
    if (hasTimeline && wants('timeline'))
      await buildBenchPages(root, 'timeline-pages', TIMELINE_PAGES, timelineDir);
    if (wants('bundle', 'timeline')) browser = await launchChromium();
    const chromium = browser;

    if (!wants('bff', 'fleet', 'bundle', 'page')) {
      // nothing of the stack to measure
    } else if (!bffBuilt || !sandboxBuilt) {
      const reason = `${!sandboxBuilt ? 'sandbox' : 'BFF'} not built yet`;
      missing(
        [
          ...Object.values(BFF_FIGURES),
          ...Object.values(FLEET_FIGURES),
          ...Object.values(BUNDLE_FIGURES),
          ...Object.values(PAGE_FIGURES),
          ...Object.values(OVERVIEW_PAGE_FIGURES),
        ],
        reason,
      );
    } else {
      log(`- starting the sandbox (fixture ${smoke ? 'demo' : 'large'}) and the BFF`);
      const stack = await startStack(options, spaDir, { proxyFigures: wants('bff') });
      if (wants('bff')) await measureBffGroup(stack, options);
      if (!pagesWanted) {
        // bundle and page not asked for
      } else if (!spaBuilt) {
        missing(
          [
            ...Object.values(BUNDLE_FIGURES),
            ...Object.values(PAGE_FIGURES),
            ...Object.values(OVERVIEW_PAGE_FIGURES),
          ],
          'SPA not built yet (no index.html)',
        );
      } else {
        const reference = await serveStatic(referenceDir);
        servers.push(reference);
        if (wants('bundle') && chromium)
          await group(Object.values(BUNDLE_FIGURES), 'bundle', () =>
            measureBundle(chromium, `${stack.bffOrigin}/sign-in`, `${reference.origin}/`, spaDir),
          );
        if (wants('page'))
          await group(Object.values(PAGE_FIGURES), 'page load (Lighthouse)', () =>
            measurePage(`${stack.bffOrigin}/sign-in`, `${reference.origin}/`, options),
          );
        if (wants('page'))
          await group(
            Object.values(OVERVIEW_PAGE_FIGURES),
            'overview fleet picture, 10,000 devices',
            () => measureOverviewPage(stack, options),
          );
      }
      // After the pages: binding the fleet's sites starts the read model's first reads of
      // thousands of devices (at the bench's budget of 1,000 calls a minute, not the vendor's 2),
      // which kept this BFF busy for minutes; the pages measured after it timed that backfill,
      // not the page (a sign-in LCP of 11.8 s in a full run, 0.53 s alone).
      if (wants('fleet'))
        await group(Object.values(FLEET_FIGURES), 'fleet dispatch', () =>
          measureFleet(stack, options),
        );
      await stopAll();
    }

    if (!wants('budget')) {
      // not asked for
    } else if (!bffBuilt || !sandboxBuilt)
      missing(Object.values(BUDGET_FIGURES), 'sandbox or BFF not built yet');
    else {
      await group(BUDGET_FIGURES_BY_WIRE.fast, 'device call budget (vendor limit on)', () =>
        measureBudget(options, spaDir, 'fast'),
      );
      // The smoke proves the group's path once; the slow wire is the same path with the
      // sandbox's latency on, and a second sandbox and BFF cost CI about a minute.
      if (smoke)
        missing(BUDGET_FIGURES_BY_WIRE.slow, 'smoke: the slow wire runs in the full run only');
      else
        await group(
          BUDGET_FIGURES_BY_WIRE.slow,
          'device call budget on a slow wire (0.3 to 3 s of latency)',
          () => measureBudget(options, spaDir, 'slow'),
        );
    }

    if (!wants('verify')) {
      // not asked for
    } else if (!bffBuilt || !sandboxBuilt)
      missing(Object.values(VERIFY_FIGURES), 'sandbox or BFF not built yet');
    else
      await group(
        Object.values(VERIFY_FIGURES),
        `verification of a fleet's window (${verifyDevicesOf(smoke).toLocaleString('en')} devices, in process)`,
        () => measureVerify(options),
      );

    if (!wants('webhooks')) {
      // not asked for
    } else if (!bffBuilt || !sandboxBuilt)
      missing(Object.values(WEBHOOK_FIGURES), 'sandbox or BFF not built yet');
    else
      await group(
        Object.values(WEBHOOK_FIGURES),
        `outgoing webhooks (${webhookChangesOf(smoke)} changes, 100 endpoints and none, in process)`,
        () => measureWebhooks(options),
      );

    if (!wants('timeline')) {
      // not asked for
    } else if (!hasTimeline) results.push(...timelineNotBuilt());
    else if (chromium) {
      const pages = await serveStatic(timelineDir);
      servers.push(pages);
      const uncapped = await launchChromium(UNCAPPED_FRAME_ARGS);
      try {
        await group(Object.values(TIMELINE_FIGURES), 'timeline (Chromium)', () =>
          measureTimeline(chromium, uncapped, pages.origin, options),
        );
      } finally {
        await uncapped.close();
      }
    }
    await browser?.close();
    browser = undefined;

    if (!wants('start')) {
      // not asked for
    } else if (!bffBuilt || !sandboxBuilt)
      missing(Object.values(START_FIGURES), 'sandbox or BFF not built yet');
    else {
      await group([START_FIGURES.ready, START_FIGURES.rss], 'npm start: ready, memory', () =>
        measureStart(options),
      );
      await group([START_FIGURES.rssDay], "npm start on a day's data: memory", () =>
        measureStartDay(options),
      );
      await group([START_FIGURES.rssPostgres], 'npm start on PostgreSQL: memory', () =>
        measureStartPostgres(options),
      );
    }
  } finally {
    await browser?.close().catch(() => undefined);
    await Promise.all(servers.map((server) => server.app.close().catch(() => undefined)));
    await stopAll();
    await rm(tmpDir, { recursive: true, force: true }).catch(() => undefined);
  }

  const measured = new Set(results.map((r) => r.name));
  missing(
    ALL_FIGURES.filter((f) => !measured.has(f.name)),
    args.only ? 'not run (--only)' : 'not measured: no group produced it',
  );
  const order = new Map(ALL_FIGURES.map((f, i) => [f.name, i]));
  results.sort((a, b) => (order.get(a.name) ?? 99) - (order.get(b.name) ?? 99));
  const kinds = new Map<string, BudgetKind>(ALL_FIGURES.map((f) => [f.name, f.kind ?? 'max']));
  await writeFile(
    path.join(root, 'bench', 'results.json'),
    `${JSON.stringify({ machine, results }, null, 2)}\n`,
  );
  log('');
  log(formatTable(results, kinds));
  log('');
  log(`bench/results.json written in ${Math.round((performance.now() - startedAt) / 1000)} s`);

  const missed = results.filter((r) => r.ok === false).map((r) => r.name);
  if (failures.length > 0) {
    console.error(`\nbench errors:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  } else if (missed.length > 0 && !smoke) {
    console.error(`\nbudgets missed: ${missed.join(', ')}`);
    process.exitCode = 1;
  }
}

const interrupt = (signal: NodeJS.Signals) => {
  void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
};
process.once('SIGINT', interrupt);
process.once('SIGTERM', interrupt);

main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  await stopAll();
  process.exit(1);
});
