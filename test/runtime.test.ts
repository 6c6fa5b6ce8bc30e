import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The project runs on the Node 24 that the `node` package installs into `node_modules/.bin`,
 * whatever Node the machine has (docs/decisions/002-node-24-runtime.md). npm puts that folder
 * first on PATH for its scripts, so every `#!/usr/bin/env node` shebang (tsx, vitest, playwright)
 * and every `npx` below them find it. These checks fail when a suite is started some other way.
 */
const MIN_MAJOR = 24;

const major = (version: string): number => Number(/^v?(\d+)\./.exec(version.trim())?.[1]);

const childOutput = (command: string, args: string[]): string =>
  execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('runtime', () => {
  it('runs the tests on Node 24 or later', () => {
    expect(major(process.versions.node)).toBeGreaterThanOrEqual(MIN_MAJOR);
  });

  it('finds Node 24 or later as `node` on PATH, where npm scripts and shebangs look', () => {
    expect(major(childOutput('node', ['--version']))).toBeGreaterThanOrEqual(MIN_MAJOR);
  });

  it('starts `npx tsx` (how the browser tests start the stack) on Node 24 or later', () => {
    const version = childOutput('npx', [
      '--no',
      '--',
      'tsx',
      '-e',
      'process.stdout.write(process.versions.node)',
    ]);
    expect(major(version)).toBeGreaterThanOrEqual(MIN_MAJOR);
  });
});
