import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/find-chromium.ts';

/** Flags the timeline figures need: smooth scrolling hooks and exact heap sizes. */
export const BENCH_CHROMIUM_ARGS = ['--enable-gpu-benchmarking', '--enable-precise-memory-info'];

/**
 * Frames not held to the display's 60 Hz: a requestAnimationFrame delta then reflects what a
 * frame costs instead of the 16.7 ms vsync floor (bench/EVIDENCE.md, pan figures).
 */
export const UNCAPPED_FRAME_ARGS = ['--disable-gpu-vsync', '--disable-frame-rate-limit'];

/** The system Chromium (Playwright cannot download its own here), headless, with bench flags. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    args: [...CHROMIUM_ARGS, ...BENCH_CHROMIUM_ARGS, ...extraArgs],
  });
}
