/**
 * The BFF in its own process for the bench, configured like production by
 * `parseServerEnv` (upstream URLs point at the bench's sandbox), serving the SPA from
 * `STATIC_DIR`. Prints `READY <port>` once it listens and its fleet job queue runs.
 * `BENCH_CPU_PROFILE_FILE` set: SIGUSR2 starts the V8 CPU profiler, the next SIGUSR2 stops it and
 * writes the profile there (prints `PROFILE WRITTEN`), so a profile covers only the load the
 * bench chooses, not the start (database creation) or idle time.
 * `BENCH_PRINT_DEVICE_READS=1`: prints `DEVICE READ {json}` after each read of the read model's
 * refresher (device, why it was due, outcome, calls, `atMs` wall clock).
 * `BENCH_UPSTREAM_CLOCK_URL=<sandbox>/_sandbox/clock`: the BFF's budget of upstream calls counts
 * on the sandbox's clock, as under `npm start` (docs/decisions/007-device-call-budget.md, section
 * 1), so a bench that moves that clock need not wait out real minutes. Read every 100 ms; the
 * offset changes only when the clock moved by more than a second, so the few milliseconds a read
 * takes never move it back and forth (a constant error delays nothing: each slot is counted and
 * freed on the same clock).
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { request } from 'undici';
import { z } from 'zod';
import { openDatabase } from '#infra/database.ts';
import { loggerOptions } from '#infra/logger.ts';
import { buildServerApp } from '#server/app.ts';
import { parseServerEnv } from '#server/env.ts';

const env = parseServerEnv(process.env);
const staticDir = process.env.STATIC_DIR;
if (!staticDir) throw new Error('STATIC_DIR is required');

/** Follows the sandbox's clock at `url`: wall clock plus an offset read from it. */
function followClock(url: string): () => number {
  let offsetMs = 0;
  const ClockSchema = z.object({ now: z.string() });
  const read = async () => {
    try {
      const sentAtMs = Date.now();
      const answer = await request(url, { headersTimeout: 2_000, bodyTimeout: 2_000 });
      const clock = ClockSchema.safeParse(await answer.body.json());
      if (answer.statusCode !== 200 || !clock.success) return;
      const measured = Date.parse(clock.data.now) - (sentAtMs + Date.now()) / 2;
      if (Math.abs(measured - offsetMs) > 1_000) offsetMs = measured;
    } catch {
      // The sandbox is not reachable yet (the relay answers 503 until it is): read again.
    }
  };
  setInterval(() => void read(), 100).unref();
  return () => Date.now() + offsetMs;
}

const clockUrl = process.env.BENCH_UPSTREAM_CLOCK_URL;
const database = await openDatabase({ dataDir: env.dataDir, databaseUrl: env.databaseUrl });
const app = await buildServerApp({
  ...env,
  staticDir,
  database,
  ...(clockUrl ? { upstreamClock: followClock(clockUrl) } : {}),
  logger: loggerOptions('bff', 'warn'),
});
// The budget group attributes vendor calls to what planned them: each device read, one line.
const deviceReads = app.readModel.reads;
if (process.env.BENCH_PRINT_DEVICE_READS === '1')
  deviceReads.onRead = (read) =>
    console.log(`DEVICE READ ${JSON.stringify({ ...read, atMs: Date.now() })}`);
const profileFile = process.env.BENCH_CPU_PROFILE_FILE;
if (profileFile) {
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  let running = false;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!running) {
        running = true;
        await inspector.post('Profiler.start');
        console.log('PROFILING');
      } else {
        running = false;
        const { profile } = await inspector.post('Profiler.stop');
        await writeFile(profileFile, JSON.stringify(profile));
        console.log('PROFILE WRITTEN');
      }
    })();
  });
}

await app.listen({ host: env.host, port: env.port });
// The fleet figures create jobs at once; the queue starts in the background after listen.
await app.fleetJobsStarted();
console.log(`READY ${env.port}`);

const stop = () =>
  void app
    .close()
    .then(() => database.close())
    .then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
