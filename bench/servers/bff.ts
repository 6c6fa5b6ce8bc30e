/**
 * The BFF in its own process for the bench, configured like production by
 * `parseServerEnv` (upstream URLs point at the bench's sandbox), serving the SPA from
 * `STATIC_DIR`. Prints `READY <port>` once it listens and its fleet job queue runs.
 * `BENCH_CPU_PROFILE_FILE` set: SIGUSR2 starts the V8 CPU profiler, the next SIGUSR2 stops it and
 * writes the profile there (prints `PROFILE WRITTEN`), so a profile covers only the load the
 * bench chooses, not the start (database creation) or idle time.
 * `BENCH_PRINT_DEVICE_READS=1`: prints `DEVICE READ {json}` after each read of the read model's
 * refresher (device, why it was due, outcome, calls, `atMs` wall clock).
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { openDatabase } from '../../src/infra/database.ts';
import { loggerOptions } from '../../src/infra/logger.ts';
import { buildServerApp } from '../../src/server/app.ts';
import { parseServerEnv } from '../../src/server/env.ts';

const env = parseServerEnv(process.env);
const staticDir = process.env.STATIC_DIR;
if (!staticDir) throw new Error('STATIC_DIR is required');

const database = await openDatabase({ dataDir: env.dataDir, databaseUrl: env.databaseUrl });
const app = await buildServerApp({
  ...env,
  staticDir,
  database,
  logger: loggerOptions('bff', 'warn'),
});
// The budget group attributes vendor calls to what planned them: each device read, one line.
const deviceReads = app.readModel?.reads;
if (process.env.BENCH_PRINT_DEVICE_READS === '1' && deviceReads)
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
