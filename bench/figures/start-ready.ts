/**
 * `start.ready_ms` (issue 8): `npm start` on a built tree whose database already exists, from
 * spawn until the BFF's readiness endpoint answers 200.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import type { BenchOptions } from '../lib/context.ts';
import { freePort, startProcess, type Started } from '../lib/processes.ts';
import { judged, type BenchResult, type JudgedFigure } from '../lib/results.ts';
import { median } from '../lib/stats.ts';

export const START_FIGURE: JudgedFigure = { name: 'start.ready_ms', unit: 'ms', budget: 3000 };

const TIMEOUT_MS = 120_000;

async function status(url: string): Promise<number | undefined> {
  try {
    const response = await request(url, { headersTimeout: 2_000, bodyTimeout: 2_000 });
    await response.body.dump();
    return response.statusCode;
  } catch {
    return undefined;
  }
}

/**
 * Polls every 10 ms until `/readyz` answers 200; when it answers 404 the BFF has no readiness
 * route yet, and `GET /api/session` answering at all (401 or 200) stands in for it.
 */
async function untilReady(
  proc: Started,
  origin: string,
  startedAt: number,
): Promise<{ ms: number; endpoint: string }> {
  while (performance.now() - startedAt < TIMEOUT_MS) {
    const readyz = await status(`${origin}/readyz`);
    if (readyz === 200) return { ms: performance.now() - startedAt, endpoint: '/readyz' };
    if (readyz === 404 && (await status(`${origin}/api/session`)) !== undefined)
      return { ms: performance.now() - startedAt, endpoint: '/api/session (no /readyz yet)' };
    if (proc.child.exitCode !== null) throw new Error(`npm start exited:\n${proc.output()}`);
    await sleep(10);
  }
  throw new Error(`npm start not ready after ${TIMEOUT_MS} ms:\n${proc.output()}`);
}

export async function measureStartReady(options: BenchOptions): Promise<BenchResult[]> {
  const dataDir = path.join(options.tmpDir, 'start-data');
  const runs = options.smoke ? 1 : 3;
  const samples: number[] = [];
  let endpoint = '';
  // Run 0 creates the database (and builds the SPA if sources changed); it is not counted. The
  // smoke skips it: one run, on a new database, only to show the path works.
  for (let run = options.smoke ? 1 : 0; run <= runs; run++) {
    const [port, sandboxPort] = [await freePort(), await freePort()];
    const origin = `http://127.0.0.1:${port}`;
    const startedAt = performance.now();
    const proc = startProcess('npm start', 'npm', ['start', '--silent'], {
      PORT: String(port),
      SANDBOX_PORT: String(sandboxPort),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    try {
      const ready = await untilReady(proc, origin, startedAt);
      if (run > 0) {
        if (proc.output().includes('Built the SPA'))
          options.log('  npm start rebuilt the SPA; sources changed during the bench');
        samples.push(ready.ms);
      }
      endpoint = ready.endpoint;
    } finally {
      await proc.stop();
    }
  }
  return [
    judged(START_FIGURE, median(samples), {
      reason: `until ${endpoint} answers; median of ${runs}${options.smoke ? ', new database' : ', database already created'}`,
    }),
  ];
}
