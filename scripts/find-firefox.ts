import { accessSync, constants } from 'node:fs';

/** Where a system Firefox usually lives, most specific first (Debian's ESR first). */
const CANDIDATES = [
  '/usr/bin/firefox-esr',
  '/usr/bin/firefox',
  '/usr/lib/firefox-esr/firefox-esr',
  '/usr/lib/firefox/firefox',
  '/opt/firefox/firefox',
  '/snap/bin/firefox',
  '/Applications/Firefox.app/Contents/MacOS/firefox',
];

/**
 * Path of a system Firefox: `FIREFOX_PATH` when set, else the first executable candidate. The
 * browser tests drive it over WebDriver BiDi (Firefox 140 ESR or later; `e2e/support/firefox.ts`);
 * nothing here can download a Firefox of its own.
 *
 * @throws Error with install instructions when none is found.
 */
export function findFirefox(env: NodeJS.ProcessEnv = process.env): string {
  const candidates = env.FIREFOX_PATH ? [env.FIREFOX_PATH] : CANDIDATES;
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there or not executable: try the next one
    }
  }
  throw new Error(
    `No Firefox found (looked at ${candidates.join(', ')}). ` +
      'Install one (Debian: apt-get install -y firefox-esr) or set FIREFOX_PATH to its executable.',
  );
}
