import path from 'node:path';

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
