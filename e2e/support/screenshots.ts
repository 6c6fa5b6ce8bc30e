import path from 'node:path';
import type { Page } from '@playwright/test';

const root = path.resolve(import.meta.dirname, '..', '..');

/**
 * Where the browser tests write their pictures: docs/screenshots/ (tracked, linked from the
 * README) only when asked with `UPDATE_SCREENSHOTS=1`, else the untracked
 * test-results/screenshots/, so a CI run or a local run leaves the checkout as it found it.
 */
export const SCREENSHOTS_DIR = path.join(
  root,
  process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : 'test-results/screenshots',
);

/** The path of the picture `file` (`sign-in-1440x900.png`) in {@link SCREENSHOTS_DIR}. */
export const screenshotPath = (file: string): string => path.join(SCREENSHOTS_DIR, file);

/**
 * Waits until the page is still enough to picture: its finite animations (a drawer sliding in,
 * a dialog fading) have finished and two frames have painted. A picture taken mid-animation
 * showed a drawer half transparent over the page.
 */
export async function stillForPicture(page: Page): Promise<void> {
  // A string: the browser tests' code has no DOM types.
  await page.evaluate(`(async () => {
    const finite = document
      .getAnimations()
      .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity);
    await Promise.all(finite.map((animation) => animation.finished.catch(() => undefined)));
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  })()`);
}
