/**
 * The running stack of the bench: the sandbox (fixture `large`, `demo` in the smoke), the BFF as
 * configured for production (it answers every status read from its read model) and, for the proxy
 * figures, the reference pass-through proxy and the Fastify floor.
 */
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { request } from 'undici';
import { createTestDatabase } from '#test/support/databases.ts';
import type { BenchCommand, BenchOptions, Stack } from './context.ts';
import {
  awaitKnownToBff,
  distinctCommandsRange,
  submitBenchCommands,
  submitDistinctCommands,
} from './fixture.ts';
import { sandboxToken, signIn, vendorPath, type BffSession } from './http.ts';
import { freePort, startTsx, waitForOutput, type Started } from './processes.ts';

/** Distinct commands for the proxy figures: 40 batches of 50 (4 in the smoke). */
const DISTINCT_BATCHES = { full: 40, smoke: 4 };

/**
 * Puts a PGlite database with the BFF's and the sandbox's migrations applied into `dataDir`
 * (`<dataDir>/pglite`, where `openDatabase` looks), copied from the tests' template, unless one is
 * there already. A process of the bench then opens it as on a restart: creating a database
 * (initdb, the migrations, the job queues' schema) took 5 to 10 s of each process's start on a
 * loaded machine, and none of the figures of these processes is about creating one; `npm start`'s
 * figures (`figures/start.ts`) still create theirs.
 */
async function withMigratedDatabase(dataDir: string): Promise<string> {
  const target = path.join(dataDir, 'pglite');
  if (await stat(target).catch(() => undefined)) return dataDir;
  const copy = await createTestDatabase('pglite');
  try {
    await mkdir(dataDir, { recursive: true });
    await rename(path.join(copy.dataDir, 'pglite'), target);
  } finally {
    await rm(copy.dataDir, { recursive: true, force: true });
  }
  return dataDir;
}

/** The data directory of the bench process `name` in this run, with a migrated database. */
const dataDirOf = (options: BenchOptions, name: string) =>
  withMigratedDatabase(path.join(options.tmpDir, `${name.replace(/\W+/g, '-')}-data`));

/**
 * Starts a BFF process on a free port against `sandboxOrigin`, configured like production, with a
 * wide budget of device calls (1000 per minute) unless `extraEnv` sets another; `extraEnv` wins
 * over every default (e.g. `EU_BASE_URL` through a relay). Its data in its own directory of the
 * run, on a migrated database. Resolves once it printed `READY`.
 */
export async function startBff(
  name: string,
  options: BenchOptions,
  sandboxOrigin: string,
  spaDir: string,
  extraEnv: NodeJS.ProcessEnv,
): Promise<{ origin: string; process: Started }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const bff = startTsx(name, path.join(options.root, 'bench/servers/bff.ts'), {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: await dataDirOf(options, name),
    PUBLIC_ORIGIN: origin,
    EU_AUTH_URL: `${sandboxOrigin}/eu`,
    EU_BASE_URL: `${sandboxOrigin}${vendorPath('')}`,
    AU_AUTH_URL: `${sandboxOrigin}/au`,
    AU_BASE_URL: `${sandboxOrigin}/au/api/openapi/v1`,
    STATIC_DIR: spaDir,
    LOG_LEVEL: 'warn',
    // As the sandbox's limit is off (bench/servers/sandbox.ts), the BFF's budget of device calls
    // is wide: the figures are of the BFF's own cost per request, not of waiting for the budget.
    EU_DEVICE_CALLS_PER_MINUTE: '1000',
    AU_DEVICE_CALLS_PER_MINUTE: '1000',
    ...extraEnv,
  });
  await waitForOutput(bff, /READY \d+/, 120_000);
  return { origin, process: bff };
}

/**
 * Starts a sandbox process on a free port with `fixture` and the vendor's per-device limit
 * `rateLimitPerMinute` (0 = off), its data in its own directory of the run (a migrated database,
 * the fixture seeded at start). Resolves once it printed `READY`.
 */
export async function startSandbox(
  options: BenchOptions,
  {
    name,
    fixture,
    rateLimitPerMinute,
  }: { name: string; fixture: 'demo' | 'large'; rateLimitPerMinute: number },
): Promise<{ origin: string; process: Started }> {
  const port = await freePort();
  const sandbox = startTsx(name, path.join(options.root, 'bench/servers/sandbox.ts'), {
    SANDBOX_PORT: String(port),
    SANDBOX_FIXTURE: fixture,
    SANDBOX_RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute),
    DATA_DIR: await dataDirOf(options, name),
    LOG_LEVEL: 'warn',
  });
  await waitForOutput(sandbox, /READY \d+/, 240_000);
  return { origin: `http://127.0.0.1:${port}`, process: sandbox };
}

/** The reference pass-through proxy (`bench/servers/reference-proxy.ts`) to the EU sandbox. */
async function startReferenceProxy(
  options: BenchOptions,
  sandboxOrigin: string,
): Promise<{ origin: string; process: Started }> {
  const port = await freePort();
  const proxy = startTsx(
    'reference proxy',
    path.join(options.root, 'bench/servers/reference-proxy.ts'),
    {
      PORT: String(port),
      UPSTREAM_AUTH_URL: `${sandboxOrigin}/eu`,
      UPSTREAM_BASE_URL: `${sandboxOrigin}${vendorPath('')}`,
      CLIENT_ID: 'demo-eu',
      CLIENT_SECRET: 'demo-eu-secret',
    },
  );
  await waitForOutput(proxy, /READY \d+/, 30_000);
  return { origin: `http://127.0.0.1:${port}`, process: proxy };
}

/**
 * The Fastify floor (`bench/servers/fastify-floor.ts`), answering every status GET with the bytes
 * the BFF answers for `command`, read through `session`.
 */
async function startFastifyFloor(
  options: BenchOptions,
  session: BffSession,
  command: BenchCommand,
): Promise<{ origin: string; process: Started }> {
  const answer = await request(
    `${session.origin}/api/devices/${command.deviceId}/commands/${command.commandId}`,
    { headers: { cookie: session.cookie } },
  );
  const body = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(`status of the floor's body: ${answer.statusCode}`);
  const port = await freePort();
  const floor = startTsx(
    'Fastify floor',
    path.join(options.root, 'bench/servers/fastify-floor.ts'),
    {
      PORT: String(port),
      BODY: body,
    },
  );
  await waitForOutput(floor, /READY \d+/, 30_000);
  return { origin: `http://127.0.0.1:${port}`, process: floor };
}

/**
 * Starts the sandbox and the BFF, signs in, binds PLANT-EU-100 and submits the 20 bench commands.
 * With `proxyFigures`, also starts the reference proxy, submits the distinct commands the proxy
 * figures read (straight to the sandbox: they need no ledger rows) and waits until the BFF's read
 * model knows them, then starts the Fastify floor.
 * `BENCH_BFF_CPU_PROFILE=<file>`: the BFF can profile itself (see `bench/servers/bff.ts`); the
 * throughput figure profiles its BFF runs into that file.
 */
export async function startStack(
  options: BenchOptions,
  spaDir: string,
  { proxyFigures }: { proxyFigures: boolean },
): Promise<Stack> {
  // The smoke only proves the path works; generating the large history would double its time.
  const { origin: sandboxOrigin } = await startSandbox(options, {
    name: 'sandbox',
    fixture: options.smoke ? 'demo' : 'large',
    rateLimitPerMinute: 0,
  });
  const profileFile = proxyFigures ? process.env.BENCH_BFF_CPU_PROFILE : undefined;
  const bff = await startBff('BFF', options, sandboxOrigin, spaDir, {
    ...(profileFile ? { BENCH_CPU_PROFILE_FILE: path.resolve(profileFile) } : {}),
  });
  const bffOrigin = bff.origin;
  const session = await signIn(bffOrigin);
  const commands = await submitBenchCommands(session, 20);
  const bffPid = bff.process.child.pid;
  const started = {
    sandboxOrigin,
    bffOrigin,
    session,
    commands,
    ...(bffPid === undefined ? {} : { bffPid }),
  };
  if (!proxyFigures) return started;

  const reference = await startReferenceProxy(options, sandboxOrigin);
  const distinctRange = distinctCommandsRange(Date.now());
  const distinct = await submitDistinctCommands(
    sandboxOrigin,
    await sandboxToken(sandboxOrigin),
    options.smoke ? DISTINCT_BATCHES.smoke : DISTINCT_BATCHES.full,
    distinctRange,
  );
  await awaitKnownToBff(session, distinct, distinctRange);
  const firstDistinct = distinct[0];
  if (!firstDistinct) throw new Error('no distinct command');
  const floor = await startFastifyFloor(options, session, firstDistinct);
  return {
    ...started,
    distinct: {
      commands: distinct,
      ...(profileFile ? { profiled: bff.process } : {}),
    },
    reference: {
      origin: reference.origin,
      ...(reference.process.child.pid === undefined ? {} : { pid: reference.process.child.pid }),
    },
    floorOrigin: floor.origin,
  };
}
