import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { REGIONS } from '#domain/token.ts';
import { openDatabase, type DatabaseHandle } from '#infra/database.ts';
import { SandboxClock } from './clock.ts';
import { DrizzlePersistence } from './db/drizzle-persistence.ts';
import { Catalog } from './fixtures/catalog.ts';
import { fixtureFor, fixtureSeedName, type FixtureName } from './fixtures/fixtures.ts';
import { BODY_LIMIT_BYTES, installErrorHandling, sendError } from './http/error-handling.ts';
import { SandboxError } from './sandbox-error.ts';
import { FaultInjector } from './http/faults.ts';
import { adminRoutes } from './routes/admin-routes.ts';
import { regionRoutes } from './routes/region-routes.ts';
import { SandboxState } from './state/sandbox-state.ts';
import type { ModelSample } from './model/physics.ts';
import { pageOfTimes } from './state/telemetry-operations.ts';
import { MemoryPersistence, type SandboxPersistence } from './state/persistence.ts';
import { PUBLISHED_DIALECT, SandboxDialect, type Dialect } from './vendor/dialect.ts';

export interface SandboxOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** Shared (`npm start` runs the BFF on it); never closed here. */
  database?: DatabaseHandle;
  fixture: FixtureName;
  /** Loopback or `SANDBOX_ADMIN=1` only (src/sandbox/README.md, Admin API). */
  adminEnabled: boolean;
  dialect?: Dialect;
  logger?: FastifyServerOptions['logger'];
  inMemory?: boolean;
  wallNow?: () => number;
  /** `npm start` makes the BFF forget its spent calls, as the vendor just did. */
  onReset?: () => Promise<void>;
  deviceRateLimitPerMinute?: number | undefined;
}

export type SandboxApp = FastifyInstance & {
  /** Wall clock plus the admin offset; the BFF's budget counts on it (decision record 007). */
  sandboxNow(): number;
  /**
   * The telemetry model's samples of a device in `[fromMs, toMs]` (epoch ms, at most now), as
   * `historicalData` would page them but all at once, in W with the exact state of charge, and
   * outside the rate limit: the truth a bench or test compares the BFF's reading with
   * (src/sandbox/README.md, Telemetry model). Empty for a device not in the fixture. Commands are
   * as the last request or clock move left them.
   */
  sandboxSamples(deviceId: string, fromMs: number, toMs: number): ModelSample[];
};

/**
 * The vendor as docs/upstream.md describes it, regions under `/eu` and `/au`, admin under
 * `/_sandbox`. Closes the database on `app.close()` only when it opened it. Not listening.
 */
export async function buildSandboxApp(options: SandboxOptions): Promise<SandboxApp> {
  const clock = new SandboxClock(options.wallNow);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Longer than any valid ID (128), so an overlong ID gets the schema's 400 naming the field.
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: (error, request, reply) =>
      sendError(
        reply,
        new SandboxError('INVALID_REQUEST', `Invalid path: ${error.message}; check the encoding`),
        request,
        clock.now(),
      ),
  });
  installErrorHandling(app, () => clock.now());

  const opened = options.inMemory || options.database ? undefined : await openDatabase(options);
  if (opened) app.addHook('onClose', async () => opened.close());
  const handle = options.database ?? opened;
  const persistence: SandboxPersistence = handle
    ? await DrizzlePersistence.open(handle)
    : new MemoryPersistence();

  const fixture = fixtureFor(options.fixture);
  const catalog = new Catalog(fixture.fixture);
  const state = await SandboxState.open({
    catalog,
    clock,
    persistence,
    fixtureName: fixtureSeedName(options.fixture),
    history: (nowMs) => fixture.history(catalog, nowMs),
    deviceCallsPerMinute: options.deviceRateLimitPerMinute,
  });
  const faults = new FaultInjector();
  const dialect = new SandboxDialect(options.dialect ?? PUBLISHED_DIALECT);

  for (const region of REGIONS)
    await app.register(regionRoutes, {
      prefix: `/${region}`,
      region,
      catalog,
      state,
      faults,
      dialect,
    });
  await app.register(adminRoutes, {
    prefix: '/_sandbox',
    state,
    faults,
    dialect,
    enabled: options.adminEnabled,
    onReset: options.onReset,
  });
  const sandboxSamples = (deviceId: string, fromMs: number, toMs: number): ModelSample[] => {
    const device = catalog.device(deviceId);
    if (!device) return [];
    const nowMs = clock.now();
    const grid = state.telemetry.sampleGrid(device, fromMs, toMs, nowMs);
    const times = pageOfTimes(grid.runs, grid.periodMs, 0, grid.total);
    return state.telemetry.samples(device, times, grid.periodMs, nowMs);
  };
  return app
    .decorate('sandboxNow', () => clock.now())
    .decorate('sandboxSamples', sandboxSamples) as SandboxApp;
}
