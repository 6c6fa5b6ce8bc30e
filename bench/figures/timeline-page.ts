/**
 * One timeline bench page driven through Playwright: open it, mount the fleet, run the
 * pan gestures (rAF deltas), and the same under a Chromium trace in the browser without the
 * frame cap. `window.bench` is bench/timeline-pages/harness.js.
 */
import type { Browser, Page } from '@playwright/test';
import { TRACE_CATEGORIES, traceFrames } from '../lib/trace-frames.ts';

export type PageName = 'powerdeck' | 'vis' | 'canvas';

export interface Sizes {
  devices: number;
  windowsPerDevice: number;
}

/** Opens a timeline bench page and waits for its `window.bench`. */
export async function openPage(browser: Browser, origin: string, name: PageName): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${origin}/${name}.html`);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  return page;
}

export type Point = { x: number; y: number };

async function dragPan(page: Page, from: Point, moves: number, stepPx: number): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= moves; i++) await page.mouse.move(from.x - i * stepPx, from.y);
  await page.mouse.up();
}

/**
 * The pan gestures on a mounted page: `chrome.gpuBenchmarking.smoothScrollBy` 3,000 px down, then
 * a 60-move drag-pan on the axis strip; returns the requestAnimationFrame deltas (ms) meanwhile.
 */
export async function panGestures(page: Page, smoke: boolean): Promise<number[]> {
  await page.evaluate(() => (globalThis as unknown as BenchWindow).bench.startFrames());
  const scrollAt = await page.evaluate(() =>
    (globalThis as unknown as BenchWindow).bench.scrollTarget(),
  );
  await page.evaluate(
    ({ pixels, at }) => (globalThis as unknown as BenchWindow).bench.smoothScroll(pixels, at),
    { pixels: smoke ? 600 : 3000, at: scrollAt },
  );
  const panAt = await page.evaluate(() => (globalThis as unknown as BenchWindow).bench.panTarget());
  await dragPan(page, panAt, smoke ? 15 : 60, 6);
  return page.evaluate(() => (globalThis as unknown as BenchWindow).bench.stopFrames());
}

/** Mounts `sizes` on an open page; resolves once the first frame with it is painted. */
export function mountFleet(page: Page, sizes: Sizes): Promise<{ ms: number; windows: number }> {
  return page.evaluate(
    ({ devices, windowsPerDevice }) =>
      (globalThis as unknown as BenchWindow).bench.mount(devices, windowsPerDevice),
    sizes,
  );
}

/**
 * The pan gestures alone, on a fresh page in the browser without the frame cap, under a Chromium
 * trace: rAF deltas, and the main thread's busy time per frame (bench/lib/trace-frames.ts).
 */
export async function runUncappedPan(
  browser: Browser,
  origin: string,
  name: PageName,
  sizes: Sizes,
  smoke: boolean,
): Promise<{ frames: number[]; busyMs: number[] }> {
  const page = await openPage(browser, origin, name);
  try {
    await mountFleet(page, sizes);
    await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    let frames: number[] = [];
    let trace = '';
    try {
      frames = await panGestures(page, smoke);
    } finally {
      // Stopped also when the gestures fail: a browser holds one trace at a time.
      trace = (await browser.stopTracing()).toString('utf8');
    }
    return { frames, busyMs: traceFrames(trace).frames.map((f) => f.busyMs) };
  } finally {
    await page.close();
  }
}

/** `window.bench` as bench/timeline-pages/harness.js defines it. */
export interface BenchWindow {
  bench: {
    mount(devices: number, windowsPerDevice: number): Promise<{ ms: number; windows: number }>;
    unmount(): void;
    startFrames(): void;
    stopFrames(): number[];
    startMoves(): void;
    stopMoves(): number[];
    scrollTarget(): Point;
    panTarget(): Point;
    drawTarget(): Point | undefined;
    smoothScroll(pixels: number, at: Point): Promise<void>;
  };
}
