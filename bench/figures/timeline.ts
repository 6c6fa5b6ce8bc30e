/**
 * Timeline figures, in Debian Chromium through Playwright: the real `TimelineView`
 * (bench/timeline-pages/powerdeck.html, fleet in memory) against vis-timeline and a plain canvas
 * page drawing the same bars. Frames are requestAnimationFrame deltas during
 * `chrome.gpuBenchmarking.smoothScrollBy` and scripted drag-pans, and the main thread's busy time
 * per frame from a Chromium trace of the same gestures; heap is `Runtime.getHeapUsage` after
 * `HeapProfiler.collectGarbage`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import type { BenchOptions } from '../lib/context.ts';
import { judged, notMeasured, type BenchResult, type Figure } from '../lib/results.ts';
import { median, percentile } from '../lib/stats.ts';
import {
  openPage,
  panGestures,
  runUncappedPan,
  type BenchWindow,
  type PageName,
  type Sizes,
} from './timeline-page.ts';

export const TIMELINE_FIGURES = {
  firstRenderRatio: { name: 'timeline.first_render_ratio_vs_vis', unit: 'x', budget: 0.2 },
  firstRender50k: { name: 'timeline.first_render_ms_50k', unit: 'ms', budget: 500 },
  panRatioCanvas: { name: 'timeline.pan_p95_ratio_vs_canvas', unit: 'x', budget: 2 },
  panSlowFrames: { name: 'timeline.pan_frames_over_25ms_pct', unit: '%', budget: 10 },
  panMainThreadRatioVis: {
    name: 'timeline.pan_main_thread_p95_ratio_vs_vis',
    unit: 'x',
    budget: 0.25,
  },
  overlapCheck: { name: 'timeline.overlap_check_ms_50k', unit: 'ms', budget: 1 },
  heapPerWindow: { name: 'timeline.heap_bytes_per_window', unit: 'bytes', budget: 1024 },
  heapAfterUnmount: { name: 'timeline.heap_after_unmount_ratio', unit: 'x', budget: 1.1 },
} satisfies Record<string, Figure>;

/** The pages under test, built from bench/timeline-pages. */
export const TIMELINE_PAGES = ['powerdeck.html', 'vis.html', 'canvas.html'] as const;

/** Whether the timeline view exists to be measured. */
export function timelineBuilt(root: string): boolean {
  return existsSync(path.join(root, 'src/client/features/timeline/components/timeline-view.tsx'));
}

interface PageRun {
  firstRenderMs: number;
  windows: number;
  /** rAF deltas with the 60 Hz vsync cap (context only since the uncapped ones judge). */
  frames: number[];
  /** rAF deltas in the browser without the frame cap (`UNCAPPED_FRAME_ARGS`): the pan figures. */
  uncappedFrames: number[];
  /**
   * Main-thread busy ms per frame during those gestures, from a Chromium trace: the vis-timeline
   * figure, since rAF deltas of our page and the canvas page both sit on the machine's
   * frame-pacing floor (bench/EVIDENCE.md).
   */
  uncappedBusyMs: number[];
  heapPerWindowBytes: number;
  heapAfterUnmountRatio: number;
}

async function heapBytes(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    const usage = await cdp.send('Runtime.getHeapUsage');
    return usage.usedSize;
  } finally {
    await cdp.detach();
  }
}

/** One page: mount, heap, frames while scrolling and drag-panning, unmount, heap. */
async function runPage(
  browser: Browser,
  origin: string,
  name: PageName,
  sizes: Sizes,
  smoke: boolean,
): Promise<PageRun> {
  const page = await openPage(browser, origin, name);
  try {
    // A small fleet mounted, scrolled, panned and unmounted first, so code V8 compiles on first
    // use counts in the baseline. Heap snapshots showed the mount-only warm-up left ~570 KB of
    // optimised code from the gestures (InstructionStream, feedback vectors) and nothing of the
    // view itself after unmount (bench/EVIDENCE.md); the same warm-up runs on every page.
    await page.evaluate(() => (globalThis as unknown as BenchWindow).bench.mount(200, 5));
    await panGestures(page, true);
    await page.evaluate(() => (globalThis as unknown as BenchWindow).bench.unmount());
    const baseline = await heapBytes(page);
    const mounted = await page.evaluate(
      ({ devices, windowsPerDevice }) =>
        (globalThis as unknown as BenchWindow).bench.mount(devices, windowsPerDevice),
      sizes,
    );
    const withData = await heapBytes(page);

    const frames = await panGestures(page, smoke);

    await page.evaluate(() => (globalThis as unknown as BenchWindow).bench.unmount());
    const after = await heapBytes(page);
    return {
      firstRenderMs: mounted.ms,
      windows: mounted.windows,
      frames,
      uncappedFrames: [],
      uncappedBusyMs: [],
      heapPerWindowBytes: (withData - baseline) / mounted.windows,
      heapAfterUnmountRatio: after / baseline,
    };
  } finally {
    await page.close();
  }
}

/** First render at 50,000 windows, then a create-drag along a row timing each pointermove. */
async function runLarge(browser: Browser, origin: string, sizes: Sizes, smoke: boolean) {
  const page = await openPage(browser, origin, 'powerdeck');
  try {
    const mounted = await page.evaluate(
      ({ devices, windowsPerDevice }) =>
        (globalThis as unknown as BenchWindow).bench.mount(devices, windowsPerDevice),
      sizes,
    );
    const at = await page.evaluate(() => (globalThis as unknown as BenchWindow).bench.drawTarget());
    if (!at) throw new Error('powerdeck page has no draw target');
    await page.evaluate(() => (globalThis as unknown as BenchWindow).bench.startMoves());
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    for (let i = 1; i <= (smoke ? 20 : 200); i++) await page.mouse.move(at.x + (i % 100) * 6, at.y);
    await page.mouse.up();
    const moves = await page.evaluate(() =>
      (globalThis as unknown as BenchWindow).bench.stopMoves(),
    );
    return { firstRenderMs: mounted.ms, windows: mounted.windows, moves };
  } finally {
    await page.close();
  }
}

/**
 * The timeline figures. `browser` is held to vsync (first render, overlap check, heap, and the
 * vsync-capped frames given for context); `uncapped` runs without the frame cap and measures the
 * three pan figures, so frame times reflect what a frame costs rather than the 16.7 ms floor.
 */
export async function measureTimeline(
  browser: Browser,
  uncapped: Browser,
  origin: string,
  options: BenchOptions,
): Promise<BenchResult[]> {
  const sizes: Sizes = options.smoke
    ? { devices: 100, windowsPerDevice: 20 }
    : { devices: 1000, windowsPerDevice: 20 };
  const large: Sizes = options.smoke
    ? { devices: 100, windowsPerDevice: 50 }
    : { devices: 1000, windowsPerDevice: 50 };
  const rounds = options.smoke ? 1 : 3;
  const runs: Record<PageName, PageRun[]> = { powerdeck: [], vis: [], canvas: [] };
  for (let round = 0; round < rounds; round++)
    for (const name of ['powerdeck', 'vis', 'canvas'] as const) {
      options.log(`  round ${round + 1}: ${name}`);
      const run = await runPage(browser, origin, name, sizes, options.smoke);
      const pan = await runUncappedPan(uncapped, origin, name, sizes, options.smoke);
      run.uncappedFrames = pan.frames;
      run.uncappedBusyMs = pan.busyMs;
      runs[name].push(run);
    }
  const largeRuns = [];
  for (let round = 0; round < rounds; round++)
    largeRuns.push(await runLarge(browser, origin, large, options.smoke));

  const medianOf = (name: PageName, pick: (run: PageRun) => number) => median(runs[name].map(pick));
  const p95 = (run: PageRun) => percentile(run.uncappedFrames, 95);
  const cappedP95 = (run: PageRun) => percentile(run.frames, 95);
  const windows = runs.powerdeck[0]?.windows ?? 0;
  const ours = medianOf('powerdeck', (r) => r.firstRenderMs);
  const vis = medianOf('vis', (r) => r.firstRenderMs);
  const ourP95 = medianOf('powerdeck', p95);
  const canvasP95 = medianOf('canvas', p95);
  const visP95 = medianOf('vis', p95);
  const slowPct = medianOf(
    'powerdeck',
    (r) => (100 * r.uncappedFrames.filter((f) => f > 25).length) / r.uncappedFrames.length,
  );
  const capped = (name: PageName) => medianOf(name, cappedP95).toFixed(1);
  const busyP95Of = (name: PageName) =>
    medianOf(name, (r) => {
      // An empty trace means the harness broke (categories, renderer): fail the group loudly.
      if (r.uncappedBusyMs.length === 0) throw new Error(`no traced main-thread frames (${name})`);
      return percentile(r.uncappedBusyMs, 95);
    });
  const busyP95 = (name: PageName) => busyP95Of(name).toFixed(1);
  const ourBusyP95 = busyP95Of('powerdeck');
  const visBusyP95 = busyP95Of('vis');
  const busyFrames = (name: PageName) =>
    `${runs[name].map((r) => r.uncappedBusyMs.length).join('/')} traced frames`;
  const p50 = (name: PageName) =>
    medianOf(name, (r) => percentile(r.uncappedFrames, 50)).toFixed(1);
  const largeWindows = largeRuns[0]?.windows ?? 0;
  const moves = largeRuns.flatMap((r) => r.moves);
  const frameNote = (name: PageName) =>
    `${runs[name].map((r) => r.uncappedFrames.length).join('/')} frames`;
  const uncappedNote =
    'rAF deltas without the 60 Hz cap (--disable-gpu-vsync --disable-frame-rate-limit, same for every page; bench/EVIDENCE.md)';
  const sizeNote = `${sizes.devices} devices, ${windows} windows, median of ${rounds} interleaved rounds`;
  return [
    judged(TIMELINE_FIGURES.firstRenderRatio, ours / vis, {
      reference: vis,
      ratio: ours / vis,
      reason: `${Math.round(ours)} ms vs vis-timeline ${Math.round(vis)} ms to the first painted frame; ${sizeNote}`,
    }),
    judged(TIMELINE_FIGURES.firstRender50k, median(largeRuns.map((r) => r.firstRenderMs)), {
      reason: `${large.devices} devices, ${largeWindows} windows, mount to first painted frame`,
    }),
    judged(TIMELINE_FIGURES.panRatioCanvas, ourP95 / canvasP95, {
      reference: canvasP95,
      ratio: ourP95 / canvasP95,
      reason: `p95 frame ${ourP95.toFixed(1)} ms vs canvas ${canvasP95.toFixed(1)} ms, p50 ${p50('powerdeck')} vs ${p50('canvas')} ms (smoothScrollBy + drag-pan; ${frameNote('powerdeck')}); ${uncappedNote}; vsync-capped p95 ${capped('powerdeck')} vs ${capped('canvas')} ms; main-thread busy per frame p95 (trace) ${busyP95('powerdeck')} vs ${busyP95('canvas')} ms`,
    }),
    judged(TIMELINE_FIGURES.panSlowFrames, slowPct, {
      reason: `${frameNote('powerdeck')} without the frame cap, ${sizeNote}`,
    }),
    judged(TIMELINE_FIGURES.panMainThreadRatioVis, ourBusyP95 / visBusyP95, {
      reference: visBusyP95,
      ratio: ourBusyP95 / visBusyP95,
      reason: `main-thread busy per frame p95 ${ourBusyP95.toFixed(1)} ms vs vis-timeline ${visBusyP95.toFixed(1)} ms (Chromium trace of the smoothScrollBy + drag-pan without the frame cap; ${busyFrames('powerdeck')}, vis ${busyFrames('vis')}); rAF p95 ${ourP95.toFixed(1)} vs ${visP95.toFixed(1)} ms, p50 ${p50('powerdeck')} vs ${p50('vis')} ms; ${sizeNote}`,
    }),
    moves.length === 0
      ? notMeasured(
          TIMELINE_FIGURES.overlapCheck,
          'no pointermove reached the timeline during the drag',
        )
      : judged(TIMELINE_FIGURES.overlapCheck, percentile(moves, 95), {
          reason: `p95 of ${moves.length} pointermove dispatches (snap + overlap verdict + state) during a create-drag at ${largeWindows} windows`,
        }),
    judged(
      TIMELINE_FIGURES.heapPerWindow,
      medianOf('powerdeck', (r) => r.heapPerWindowBytes),
      {
        reference: medianOf('vis', (r) => r.heapPerWindowBytes),
        reason:
          'JS heap after forced GC, mounted minus warmed-up empty page, records included; reference: vis-timeline per item',
      },
    ),
    judged(
      TIMELINE_FIGURES.heapAfterUnmount,
      medianOf('powerdeck', (r) => r.heapAfterUnmountRatio),
      {
        reference: medianOf('vis', (r) => r.heapAfterUnmountRatio),
        reason:
          'JS heap after unmount and forced GC over the page after a warm-up (small fleet mounted, scrolled, panned, unmounted); reference: vis-timeline after destroy()',
      },
    ),
  ];
}

export function timelineNotBuilt(): BenchResult[] {
  return Object.values(TIMELINE_FIGURES).map((f) => notMeasured(f, 'timeline not built yet'));
}
