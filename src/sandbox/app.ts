import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { REGIONS } from '../domain/token.ts';
import { openDatabase, type DatabaseHandle } from '../infra/database.ts';
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
import { MemoryPersistence, type SandboxPersistence } from './state/persistence.ts';
import { PUBLISHED_DIALECT, SandboxDialect, type Dialect } from './vendor/dialect.ts';

/** What `buildSandboxApp` needs. */
export interface SandboxOptions {
  /** Where the embedded database lives (`DATA_DIR`). */
  dataDir: string;
  /** PostgreSQL instead of the embedded database. */
  databaseUrl?: string | undefined;
  /** An open database to share (`npm start` runs the BFF on the same one); never closed here. */
  database?: DatabaseHandle;
  fixture: FixtureName;
  /**
   * Serve the admin API under `/_sandbox` (src/sandbox/README.md, Admin API: loopback or
   * `SANDBOX_ADMIN=1` only).
   */
  adminEnabled: boolean;
  /**
   * The dialect to start with and to go back to on reset (`SANDBOX_DIALECT`; docs/upstream.md,
   * Dialects); default the vendor's published one.
   */
  dialect?: Dialect;
  logger?: FastifyServerOptions['logger'];
  /** Keep state in memory only, no database (unit tests). */
  inMemory?: boolean;
  /** Wall clock, epoch ms; tests may replace it. Default `Date.now`. */
  wallNow?: () => number;
  /**
   * Called after the admin API's reset has put the sandbox back to its fixture: `npm start` makes
   * the BFF beside it forget the calls it spent on the vendor's devices, as the vendor itself
   * just forgot them (src/sandbox/README.md, Admin API).
   */
  onReset?: () => Promise<void>;
  /**
   * The vendor's rate limit at start and after every reset: requests per device per rolling
   * minute of the sandbox clock, 0 = off (`SANDBOX_RATE_LIMIT_PER_MINUTE`; docs/upstream.md, Rate
   * limit). Default 2, the vendor's.
   */
  deviceRateLimitPerMinute?: number | undefined;
}

/** The sandbox app, with its clock for whoever builds it. */
export type SandboxApp = FastifyInstance & {
  /**
   * The sandbox clock, epoch ms: the wall clock plus the offset the admin API moves
   * (`POST /_sandbox/clock`, back to the wall clock on `reset`). The vendor's rate limit counts
   * on it, so `npm start` gives it to the BFF as `upstreamClock` for its budget of calls
   * (docs/decisions/007-device-call-budget.md, section 1).
   */
  sandboxNow(): number;
};

/**
 * Builds the sandbox upstream, the vendor as docs/upstream.md describes it: Europe under `/eu`,
 * Australia under `/au` (each with the token endpoint at `/api/auth/oauth2/token` and the
 * business operations under `/api/openapi/v1`), the admin API under `/_sandbox`. State is kept in
 * the database's `sandbox` schema (migrations applied here); the database is closed on
 * `app.close()` when this app opened it, never when it was given (`database`). The first start on
 * an empty database seeds the fixture. Not listening: `main.ts` listens, tests use `inject()` or
 * listen on 127.0.0.1 port 0. The app carries its clock, `app.sandboxNow()`.
 */
export async function buildSandboxApp(options: SandboxOptions): Promise<SandboxApp> {
  const clock = new SandboxClock(options.wallNow);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Longer than any valid ID (128), so an overlong ID gets the schema's 400 naming the field.
    routerOptions: { maxParamLength: 256 },
    // A URL that cannot be decoded is refused before routing; answer it in our shape too.
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
  return app.decorate('sandboxNow', () => clock.now()) as SandboxApp;
}
