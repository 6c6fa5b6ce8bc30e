import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/find-chromium.ts';

/** Flags the timeline figures need: smooth scrolling hooks and exact heap sizes (issue 8). */
export const BENCH_CHROMIUM_ARGS = ['--enable-gpu-benchmarking', '--enable-precise-memory-info'];

/** The system Chromium (Playwright cannot download its own here), headless, with bench flags. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    args: [...CHROMIUM_ARGS, ...BENCH_CHROMIUM_ARGS],
  });
}
