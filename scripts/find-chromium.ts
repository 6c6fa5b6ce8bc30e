import { accessSync, constants } from 'node:fs';

/** Where a system Chrome or Chromium usually lives, most specific first. */
const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/opt/google/chrome/chrome',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/**
 * Flags for headless Chromium on a machine without a GPU, a user namespace sandbox (root) or
 * network beyond loopback: without the background-networking flags Chromium keeps dialling out.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Path of a system Chrome or Chromium: `CHROMIUM_PATH` when set, else the first executable
 * candidate. Playwright cannot download its own browser here, so the tests use this one.
 *
 * @throws Error with install instructions when none is found.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const candidates = env.CHROMIUM_PATH ? [env.CHROMIUM_PATH] : CANDIDATES;
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there or not executable: try the next one
    }
  }
  throw new Error(
    `No Chrome or Chromium found (looked at ${candidates.join(', ')}). ` +
      'Install one (Debian: apt-get install -y chromium) or set CHROMIUM_PATH to its executable.',
  );
}
