/**
 * Evidence for the timeline pan figures (bench/EVIDENCE.md): the same gestures as
 * `npm run bench` (smoothScrollBy 3,000 px, then a 60-move drag-pan, 1,000 devices and 20,000
 * windows) on the powerdeck, canvas and vis-timeline pages, under a Chromium trace, in a browser
 * held to vsync and in one without the frame cap (`UNCAPPED_FRAME_ARGS`). Prints, per page and
 * mode, requestAnimationFrame deltas and the main thread's busy time per frame (p50/p95), and
 * writes the traces to `dist/bench/traces/` (git-ignored; open them in chrome://tracing or the
 * DevTools performance panel).
 * Usage: `npx tsx bench/trace-timeline.ts [rounds=2]` (run under `flock /tmp/bench.lock`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mountFleet, openPage, panGestures, type PageName } from './figures/timeline-page.ts';
import { TIMELINE_PAGES } from './figures/timeline.ts';
import { UNCAPPED_FRAME_ARGS, launchChromium } from './lib/browser.ts';
import { buildBenchPages } from './lib/build.ts';
import { median, percentile } from './lib/stats.ts';
import { TRACE_CATEGORIES, traceFrames, type TraceFrame } from './lib/trace-frames.ts';
import { serveStatic } from './servers/static.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PAGES: PageName[] = ['powerdeck', 'canvas', 'vis'];
const MODES = { vsync: [] as string[], uncapped: UNCAPPED_FRAME_ARGS };

interface Sample {
  raf: number[];
  frames: TraceFrame[];
  byEvent: Record<string, number>;
  byTaskKind: Record<string, number>;
}

const ms = (value: number) => value.toFixed(1);

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 2);
  const pagesDir = path.join(root, 'dist', 'bench', 'timeline-pages');
  const tracesDir = path.join(root, 'dist', 'bench', 'traces');
  await mkdir(tracesDir, { recursive: true });
  await buildBenchPages(root, 'timeline-pages', TIMELINE_PAGES, pagesDir);
  const server = await serveStatic(pagesDir);
  const samples = new Map<string, Sample[]>();
  try {
    // Both browsers open at once and the modes interleaved page by page, so load on the shared
    // machine hits both alike.
    const browsers = await Promise.all(
      Object.entries(MODES).map(async ([mode, args]) => ({
        mode,
        browser: await launchChromium(args),
      })),
    );
    try {
      for (let round = 0; round < rounds; round++)
        for (const name of PAGES)
          for (const { mode, browser } of browsers) {
            const page = await openPage(browser, server.origin, name);
            try {
              await mountFleet(page, { devices: 1000, windowsPerDevice: 20 });
              await browser.startTracing(page, { categories: TRACE_CATEGORIES });
              const raf = await panGestures(page, false);
              const trace = (await browser.stopTracing()).toString('utf8');
              await writeFile(path.join(tracesDir, `${mode}-${name}-${round + 1}.json`), trace);
              const key = `${mode} ${name}`;
              samples.set(key, [...(samples.get(key) ?? []), { raf, ...traceFrames(trace) }]);
              console.error(`${key} round ${round + 1}: ${raf.length} rAF frames`);
            } finally {
              await page.close();
            }
          }
    } finally {
      await Promise.all(browsers.map(({ browser }) => browser.close()));
    }
  } finally {
    await server.app.close();
  }

  console.log(
    '| mode | page | rAF frames | rAF delta p50 / p95 ms | traced frames | main-thread busy per frame p50 / p95 ms | busy share of frame p50 | main thread per frame, mean ms: script (FunctionCall) / style+layout / paint+prepaint+layerize / GC |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const [key, runs] of samples) {
    const [mode, name] = key.split(' ');
    const raf = runs.map((r) => r.raf);
    const frames = runs.flatMap((r) => r.frames);
    const busy = frames.map((f) => f.busyMs);
    const share = frames.map((f) => (f.frameMs > 0 ? f.busyMs / f.frameMs : 0));
    const sum = (names: string[]) =>
      runs.reduce((t, r) => t + names.reduce((u, n) => u + (r.byEvent[n] ?? 0), 0), 0) /
      Math.max(1, frames.length);
    const perRound = (pick: (deltas: number[]) => number) =>
      ms(median(raf.filter((d) => d.length > 0).map(pick)));
    console.log(
      `| ${mode} | ${name} | ${raf.map((d) => d.length).join(' / ')} | ${perRound((d) => percentile(d, 50))} / ${perRound((d) => percentile(d, 95))} | ${frames.length} | ${busy.length ? `${ms(percentile(busy, 50))} / ${ms(percentile(busy, 95))}` : '-'} | ${share.length ? `${Math.round(100 * percentile(share, 50))}%` : '-'} | ${ms(sum(['FunctionCall']))} / ${ms(sum(['UpdateLayoutTree', 'Layout']))} / ${ms(sum(['Paint', 'PrePaint', 'Layerize']))} / ${ms(sum(['MajorGC', 'MinorGC']))} |`,
    );
  }
  console.log(
    '\n| mode | page | main-thread ms per frame by task kind (top 4) |\n| --- | --- | --- |',
  );
  for (const [key, runs] of samples) {
    const [mode, name] = key.split(' ');
    const frames = runs.reduce((t, r) => t + r.frames.length, 0);
    const kinds = new Map<string, number>();
    for (const r of runs)
      for (const [kind, kindMs] of Object.entries(r.byTaskKind))
        kinds.set(kind, (kinds.get(kind) ?? 0) + kindMs);
    const top = [...kinds]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([kind, kindMs]) => `${kind} ${ms(kindMs / Math.max(1, frames))}`);
    console.log(`| ${mode} | ${name} | ${top.join(', ')} |`);
  }
  console.log(
    `\nrounds: ${rounds}; rAF p50/p95 are medians over rounds; busy per frame pools every traced frame. Traces: ${path.relative(root, tracesDir)}/`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
