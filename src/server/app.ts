import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { DatabaseHandle } from '#infra/database.ts';
import type { ServerEnv } from './env.ts';
import { installErrorHandling } from './http/error-handling.ts';
import { lazyChildLoggerFactory } from './http/lazy-child-logger.ts';
import { healthRoutes } from './http/health-routes.ts';
import { trackRoutes } from './http/route-table.ts';
import { installRequestGuards } from './http/request-guards.ts';
import { installSecurityHeaders } from './http/security-headers.ts';
import { installStaticSpa } from './http/static-spa.ts';
import { installProductApi, productApiRoutes } from './product-api/product-api.ts';
import { LedgerOverviewSource } from './product-api/overview-source.ts';
import { overviewRoutes } from './product-api/overview-routes.ts';
import { DatabaseSiteZones } from './db/site-zones.ts';
import { openBffStorage } from './db/storage.ts';
import { Ledger, type LedgerHooks } from './ledger/ledger.ts';
import { LedgerConnectionAudit } from './ledger/connection-audit.ts';
import { FleetJobs } from './fleet/fleet-jobs.ts';
import { JobQueueHost } from './db/job-queue.ts';
import { FleetQueue, type FleetQueueOptions } from './fleet/fleet-queue.ts';
import { FleetOutcomes } from './fleet/fleet-outcomes.ts';
import { fleetRoutes } from './fleet/fleet-routes.ts';
import { FleetRunner, type FleetRunnerHooks } from './fleet/fleet-runner.ts';
import { FleetStore } from './fleet/fleet-store.ts';
import { LedgerStore } from './ledger/ledger-store.ts';
import type { DeviceCommandsRecorder } from './ledger/device-commands-recorder.ts';
import { DeviceReads } from './read-model/device-reads.ts';
import { ReadModel } from './read-model/read-model.ts';
import { ReadModelStore } from './read-model/read-model-store.ts';
import { DEFAULT_DEVICE_CALLS_PER_WINDOW } from '#domain/device-budget.ts';
import { DEFAULT_REFRESH_SETTINGS } from '#domain/refresh-policy.ts';
import { AccountEvents } from './events/account-events.ts';
import type { ChannelListenerOptions } from './events/event-channel.ts';
import { eventRoutes } from './events/event-routes.ts';
import { AnnouncedSessionStore } from './events/session-ends.ts';
import { notificationRoutes } from './notifications/notification-routes.ts';
import { Notifications } from './notifications/notifications.ts';
import { DatabaseSessionStore } from './session/database-session-store.ts';
import { SecretBox, loadSessionKey } from './session/secret-box.ts';
import { sessionCookieFor } from './session/session-cookie.ts';
import { sessionRoutes } from './session/session-routes.ts';
import { OidcClient } from './session/oidc.ts';
import { oidcRoutes } from './session/oidc-routes.ts';
import { VendorConnections } from './session/vendor-connections.ts';
import { connectionRoutes } from './session/connection-routes.ts';
import type { SignInLimitOptions } from './session/sign-in-limits.ts';
import { SESSION_ABSOLUTE_TIMEOUT_MS, type Session } from './session/session-store.ts';
import { Sessions } from './session/sessions.ts';
import { TokenCache } from './upstream/token-cache.ts';
import { SiteDirectory } from './upstream/site-directory.ts';
import { UpstreamApi, type KnownCommandSource } from './upstream/upstream-api.ts';
import { UpstreamClient } from './upstream/upstream-client.ts';
import { MAX_ATTEMPTS, UpstreamResilience } from './upstream/resilience.ts';
import { UpstreamHttp } from './upstream/upstream-http.ts';
import { ChangeQueue, type ChangeQueueOptions } from './budget/change-queue.ts';
import { budgetedHistory } from './ledger/budgeted-history.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from './budget/device-budget-store.ts';
import { QueuedChangeStore } from './budget/queued-change-store.ts';
import { failedStepKey, queuedChangeListener } from './product-api/change-events.ts';
import { queuedStepSender } from './product-api/queued-step-sender.ts';
import { WritePath } from './product-api/write-path.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Starts the fleet job queue now unless it has started (by itself it starts in the background
     * {@link FLEET_QUEUE_START_DELAY_MS} after `ready()`), and resolves once it runs; a failed start
     * is retried. Resolves at once when the app closes before the queue ran. Never rejects. For tests and the bench, which create jobs as soon as the BFF listens.
     */
    fleetJobsStarted(): Promise<void>;
    /**
     * Starts the queue of changes now unless it has started (by itself it starts with the fleet
     * job queue, {@link FLEET_QUEUE_START_DELAY_MS} after `ready()`), and resolves once it runs.
     * Never rejects. For tests and the bench.
     */
    changeQueueStarted(): Promise<void>;
    /**
     * The queue of changes waiting for their devices' budget of upstream calls. For tests, which
     * wake it after moving the upstream clock (`recheck()`).
     */
    changeQueue: ChangeQueue;
    /**
     * Account events (`publish`) and the notification inbox (`notify`) of this BFF
     * (docs/architecture.md, Live updates). For tests, which publish and notify as the modules
     * that will call them do.
     */
    liveUpdates: { events: AccountEvents; notifications: Notifications };
    /**
     * The upstream's clock, epoch ms (`upstreamClock`): what the per-device budget of upstream
     * calls and the queue of changes count on (src/server/budget).
     */
    upstreamNow(): number;
    /**
     * Forgets what the BFF learnt of the upstream's devices: the calls it spent of each device's
     * budget, its busy marks, the read model's commands, and the changes queued for them. For an
     * upstream that has just forgotten them itself (the sandbox's admin reset beside `npm start`).
     */
    forgetUpstream(): Promise<void>;
    /**
     * The read model of device commands (docs/architecture.md, Read model): what the ledger
     * records of every accepted change, each device's version and what changed since one.
     */
    deviceCommands: DeviceCommandsRecorder;
    /**
     * The database's read model and its refresher (docs/architecture.md, Read model). Tests and
     * the bench call `reads.runDue()` after moving the upstream clock, and read `reads.counts`.
     */
    readModel: { model: ReadModel; reads: DeviceReads };
  }
}

/**
 * The BFF's database: an open one to share (npm start, tests), never closed by the BFF; or where
 * the BFF opens its own (`dataDir`, `databaseUrl`: `db/storage.ts`).
 */
export type DatabaseOption =
  | { database: DatabaseHandle }
  | { database?: undefined; dataDir: string }
  | { database?: undefined; databaseUrl: string };

/** How long after the app is ready the fleet job queue starts, ms (see `buildServerApp`). */
export const FLEET_QUEUE_START_DELAY_MS = 1_000;

/** Largest request body the BFF reads: a 50-device batch is about 4 KiB, so 64 KiB is ample. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * What `buildServerApp` needs. The parsed env fits as is (`{ ...parseServerEnv(process.env) }`);
 * only `upstreams` and a database are required: an open one (`database`), else PostgreSQL at
 * `databaseUrl` or PGlite in `dataDir` (`db/storage.ts`).
 */
export type ServerOptions = Pick<ServerEnv, 'upstreams'> &
  Partial<Omit<ServerEnv, 'upstreams'>> &
  DatabaseOption & {
    /** The built SPA (`dist/client`); no static serving when absent. */
    staticDir?: string;
    logger?: FastifyServerOptions['logger'];
    /**
     * The upstream's clock, epoch ms, on which the vendor counts its limit of calls per device and
     * so the BFF its budget of them (docs/decisions/007-device-call-budget.md, section 1). Default
     * `Date.now`; `npm start` passes the sandbox's clock when it runs the sandbox, which its admin
     * API moves (`sandboxNow()` of the sandbox app, wired in `scripts/start.ts`).
     */
    upstreamClock?: (() => number) | undefined;
    /** What tests set: clocks, timings and hooks (`ServerTestingOptions`); none in production. */
    testing?: ServerTestingOptions;
  };

/**
 * The test knobs of `buildServerApp`, gathered so production options stay few: each has a
 * production default, and `npm start`, `main.ts` and the bench set none.
 */
export interface ServerTestingOptions {
  /** Clock of sessions and tokens, epoch ms; tests move it. Default `Date.now`. */
  now?: () => number;
  /**
   * How long a ledger entry stays `pending` before another attempt may treat its outcome as
   * unknown (a BFF that died mid-call). Default: every attempt timing out, plus 5 s.
   */
  ledgerLeaseMs?: number;
  /** Sign-in rate limits (defaults: 30 per IP and minute, 10 failures per client in 15 min). */
  signInLimits?: SignInLimitOptions;
  /** How long an open circuit fails fast before a trial call (default 10 s). */
  circuitHalfOpenAfterMs?: number;
  /** Test-only hooks into the ledger (the crash test kills the process between steps). */
  ledgerHooks?: LedgerHooks;
  /**
   * How long writing a ledger entry waits for the site of its devices before recording it
   * without (default 1 s).
   */
  siteLookupWaitMs?: number;
  /** Company sign-in: replaces `fetch` for requests to the IdP (tests relay and alter them). */
  oidcFetch?: ConstructorParameters<typeof OidcClient>[1]['fetch'];
  /** Timings of the fleet job queue (tests shorten them). */
  fleetQueue?: FleetQueueOptions;
  /** The longest wait between two tries of one fleet batch, ms (default 30 s; tests shorten it). */
  fleetRetryWaitCapMs?: number;
  /** Test-only hooks into fleet job steps (the crash test kills the process between steps). */
  fleetHooks?: FleetRunnerHooks;
  /** Timings of the queue of changes (tests shorten them). */
  changeQueue?: ChangeQueueOptions;
  /**
   * How long a replace or an undo due now is waited for before it is answered as queued, ms
   * (default 15 s).
   */
  changeSettleWaitMs?: number;
  /** Timings of live updates: heartbeat and session checks, the listener's reconnection. */
  liveUpdates?: { heartbeatMs?: number; listener?: ChannelListenerOptions };
  /**
   * The refresher's look for due devices, ms (default 1 s; 0: only when `readModel.reads.runDue()`
   * is called, for tests that drive it).
   */
  readModelTickMs?: number;
  /**
   * How long a device claimed for a read stays this BFF's, ms on the upstream clock (default
   * 2 min): the reads a killed BFF had under way wait that long for another (crash tests shorten it).
   */
  readModelLeaseMs?: number;
}

/**
 * Builds the BFF (docs/architecture.md, Parts and data flow; BFF surface): security headers,
 * request guards (path, CSRF + Origin), `/api/session`, the product API under `/api` with its
 * OpenAPI document, problem+json errors, and the SPA when `staticDir` is given. Not listening; `main.ts`
 * listens, tests `inject()` or listen on port 0.
 *
 * When `publicOrigin` is absent or has port 0, the expected Origin is taken from the address the
 * app listens on (`http://<address>:<port>`), so tests can listen on an ephemeral port.
 */
export async function buildServerApp(options: ServerOptions): Promise<FastifyInstance> {
  const testing = options.testing ?? {};
  const now = testing.now ?? Date.now;
  const app = Fastify({
    logger: options.logger ?? false,
    childLoggerFactory: lazyChildLoggerFactory,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: false,
    // Longer than any valid ID (128), so an overlong ID gets the schema's 400 naming the field.
    routerOptions: { maxParamLength: 256 },
  });

  const configuredOrigin = options.publicOrigin;
  const publicOrigin = (): string => {
    if (configuredOrigin && !/:0$/.test(configuredOrigin)) return configuredOrigin;
    const address = app.server.address() as AddressInfo | null;
    if (!address) return configuredOrigin ?? 'http://127.0.0.1';
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  };
  const cookieSettings = sessionCookieFor(configuredOrigin ?? 'http://127.0.0.1');

  const storage = await openBffStorage(options);
  const box = new SecretBox(await loadSessionKey(options));
  const accountEvents = new AccountEvents({
    handle: storage.handle,
    now,
    log: app.log,
    heartbeatMs: testing.liveUpdates?.heartbeatMs,
    listener: testing.liveUpdates?.listener,
  });
  const notifications = new Notifications({
    db: storage.handle.db,
    events: accountEvents,
    now,
    log: app.log,
  });
  // A session that ends closes its live update streams on every instance.
  const store = new AnnouncedSessionStore(new DatabaseSessionStore(storage.handle.db, box), (id) =>
    accountEvents.sessionEnded(id),
  );
  const connections = options.oidc ? new VendorConnections(storage.handle.db, box) : undefined;
  const oidc = options.oidc
    ? new OidcClient(options.oidc, {
        publicOrigin: configuredOrigin ?? 'http://127.0.0.1',
        now,
        fetch: testing.oidcFetch,
        log: app.log,
      })
    : undefined;

  // The read model (docs/architecture.md, Read model) plans on the upstream's clock.
  const upstreamNow = options.upstreamClock ?? Date.now;
  const ledgerStore = new LedgerStore(storage.handle.db);
  const readModel = new ReadModel({
    store: new ReadModelStore(storage.handle.db),
    ledger: ledgerStore,
    events: accountEvents,
    notifications,
    now: upstreamNow,
    settings: {
      ...DEFAULT_REFRESH_SETTINGS,
      openEveryMs: options.deviceReadOpenEveryMs ?? DEFAULT_REFRESH_SETTINGS.openEveryMs,
      idleEveryMs: options.deviceReadIdleEveryMs ?? DEFAULT_REFRESH_SETTINGS.idleEveryMs,
    },
    log: app.log,
    box,
  });

  // What the BFF knows of a device's commands, which a new window is checked against and a
  // vendor's overlap refusal is named from: never a call of the device outside its budget.
  const knownCommands: KnownCommandSource = (caller, deviceId, range) =>
    readModel.store.commandsMeeting(
      { region: caller.region, clientId: caller.clientId },
      deviceId,
      range,
    );

  const http = new UpstreamHttp(
    options.upstreamTimeoutMs === undefined ? {} : { timeoutMs: options.upstreamTimeoutMs },
  );
  // The token cache asks the API's token call, which is made just below: only called later.
  const tokens: TokenCache = new TokenCache(
    (caller) => api.token(caller.region, caller, 'renewal'),
    now,
    { log: app.log, unknownLifetimeKeepMs: SESSION_ABSOLUTE_TIMEOUT_MS },
  );
  const sessions: Sessions = new Sessions({
    store,
    tokens,
    cookie: cookieSettings,
    now,
    requestToken: (region, credentials) => api.token(region, credentials, 'sign-in'),
    connections,
  });
  const resilience = new UpstreamResilience(
    testing.circuitHalfOpenAfterMs === undefined
      ? {}
      : { halfOpenAfterMs: testing.circuitHalfOpenAfterMs },
  );
  const upstream: UpstreamClient = new UpstreamClient({
    resilience,
    upstreams: options.upstreams,
    http,
    tokens,
    onCredentialsRevoked: (session) => sessions.revoke(session),
  });
  const zones = new DatabaseSiteZones(storage.handle.db);
  const api: UpstreamApi = new UpstreamApi({
    client: upstream,
    http,
    upstreams: options.upstreams,
    log: app.log,
    zones,
    now,
    // A control a device turned out not to support leaves its capabilities (decision 006).
    unsupportedControls: (caller) => readModel.unsupportedControls(caller),
    knownCommands,
  });
  // Every site list read tells the read model which devices are bound.
  const sites = new SiteDirectory(
    (caller, { retry }) => readModel.readSites(caller, () => api.sites(caller, { retry })),
    now,
  );
  // A refusal of a value outside a device's range names the range, from the site list.
  api.deviceLookup = (caller, deviceIds) => sites.devices(caller, deviceIds);

  // Every upstream call about a device goes through its budget (docs/decisions/007-device-call-
  // budget.md, section 1), the ledger's reads that settle an unknown outcome among them.
  const deviceBudgets = deviceBudgetsOf(
    options.deviceCallsPerMinute ?? {
      eu: DEFAULT_DEVICE_CALLS_PER_WINDOW,
      au: DEFAULT_DEVICE_CALLS_PER_WINDOW,
    },
  );
  const budget = new DeviceBudgetStore(storage.handle.db, deviceBudgets);
  const deviceCommands: DeviceCommandsRecorder = readModel;
  const ledger = new Ledger({
    recorder: deviceCommands,
    store: ledgerStore,
    upstream: api,
    history: budgetedHistory({ budget, upstream: api, upstreamNow }),
    sites,
    now,
    leaseMs: testing.ledgerLeaseMs ?? MAX_ATTEMPTS * http.timeoutMs + 5000,
    siteLookupWaitMs: testing.siteLookupWaitMs,
    log: app.log,
    hooks: testing.ledgerHooks,
  });

  // One pg-boss for both queues (fleet job steps, queued changes): two instances starting at once
  // on PGlite's one connection would interleave their transactions.
  const superviseIntervals = [testing.fleetQueue, testing.changeQueue].flatMap((queue) =>
    queue?.superviseIntervalSeconds === undefined ? [] : [queue.superviseIntervalSeconds],
  );
  const jobQueues = new JobQueueHost(storage.handle, app.log, {
    superviseIntervalSeconds:
      superviseIntervals.length > 0 ? Math.min(...superviseIntervals) : undefined,
  });
  const fleetStore = new FleetStore(storage.handle.db);
  const fleetQueue = new FleetQueue(
    storage.handle,
    new FleetRunner({
      store: fleetStore,
      ledger,
      upstream: api,
      box,
      now,
      forgetCaller: (callerId) => tokens.drop(callerId),
      hooks: testing.fleetHooks,
      retryWaitCapMs: testing.fleetRetryWaitCapMs,
      budget,
      upstreamNow,
    }),
    app.log,
    { ...testing.fleetQueue, host: jobQueues },
  );
  const fleetJobs = new FleetJobs({
    store: fleetStore,
    queue: fleetQueue,
    box,
    now,
    budgetOf: budget.budgetOf.bind(budget),
    outcomes: new FleetOutcomes({
      store: fleetStore,
      ledger: ledgerStore,
      readModel,
      events: accountEvents,
      notifications,
      now,
      log: app.log,
    }),
  });
  // The durable queue of changes: what the budget cannot carry now waits there, sent through the
  // ledger when its devices have a slot (docs/decisions/007-device-call-budget.md, section 2).
  const queuedChanges = new QueuedChangeStore(storage.handle.db, budget);
  const changeQueue = new ChangeQueue({
    handle: storage.handle,
    host: jobQueues,
    store: queuedChanges,
    budget,
    send: queuedStepSender({ ledger, upstream: api, box, now, budget, upstreamNow }),
    upstreamNow,
    log: app.log,
    options: testing.changeQueue,
    onChange: queuedChangeListener({
      events: accountEvents,
      notifications,
      forgetCaller: (callerId) => tokens.drop(callerId),
      log: app.log,
      siteOf: async (row) => {
        const key = failedStepKey(row);
        const entry = key ? await ledger.store.findByKey(row.owner, key) : undefined;
        return { siteId: entry?.siteId ?? undefined, timeZone: entry?.timeZone ?? undefined };
      },
    }),
  });
  const writePath = new WritePath({
    ledger,
    budget,
    queue: changeQueue,
    box,
    sites,
    upstreamNow,
    // A change naming a device version is checked against the read model (decision 007, 5).
    versions: deviceCommands,
    // A new window is checked against the commands it knows before it is sent or queued.
    knownCommands,
    settleWaitMs: testing.changeSettleWaitMs,
  });
  // The queue's start (pg-boss's schema check, its queue and worker: about half a second) runs
  // after the app serves rather than before, so every other route answers at once; what needs the
  // queue answers 503 `fleet_jobs_starting` meanwhile. It waits a moment more: its module loading
  // and statements on the one PGlite connection run on the thread that answers the first
  // requests, which, started at once, it held up about as long as before. start() never rejects:
  // failures are logged and tried again.
  let queueStartTimer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    queueStartTimer = setTimeout(() => {
      void fleetQueue.start();
      void changeQueue.start();
    }, FLEET_QUEUE_START_DELAY_MS);
    queueStartTimer.unref();
  });
  app.decorate('fleetJobsStarted', () => fleetQueue.start());
  app.decorate('changeQueueStarted', () => changeQueue.start());
  app.decorate('changeQueue', changeQueue);
  const deviceReads = new DeviceReads({
    model: readModel,
    budget,
    upstream: api,
    now: upstreamNow,
    log: app.log,
    tickMs: testing.readModelTickMs,
    leaseMs: testing.readModelLeaseMs,
  });
  app.decorate('upstreamNow', upstreamNow);
  app.decorate('forgetUpstream', async () => {
    await queuedChanges.forgetAll();
    await budget.forgetAll();
    await readModel.store.forgetAll();
  });
  app.decorate('deviceCommands', deviceCommands);
  app.decorate('readModel', { model: readModel, reads: deviceReads });
  app.decorate('liveUpdates', { events: accountEvents, notifications });
  app.addHook('onReady', async () => {
    await accountEvents.start();
    notifications.startPruning();
    // Its first look comes a tick later; reads never hold up the first answers.
    deviceReads.start();
  });

  trackRoutes(app);
  app.decorateRequest('sessionLookup', null);
  app.removeContentTypeParser('text/plain');
  // While shutting down, answers close their connection so close() need not wait for keep-alive.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    // Open event streams would keep the server from closing; their browsers reconnect elsewhere.
    await accountEvents.close();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onClose', async () => {
    clearTimeout(queueStartTimer);
    await deviceReads.stop();
    notifications.stopPruning();
    await fleetQueue.stop();
    await changeQueue.stop();
    await jobQueues.stop();
    await http.close();
    if (storage.owned) await storage.handle.close();
  });

  await app.register(cookie);
  await installProductApi(app);
  await installSecurityHeaders(app, { https: cookieSettings.secure });
  installRequestGuards(app, publicOrigin);
  installErrorHandling(app, { spaFallback: options.staticDir !== undefined });

  await app.register(sessionRoutes, {
    sessions,
    cookie: cookieSettings,
    limits: testing.signInLimits ?? {},
    now,
    oidc,
    box,
    deviceBudgets,
  });
  if (oidc && connections) {
    await app.register(oidcRoutes, { sessions, oidc, box, cookie: cookieSettings, publicOrigin });
    await app.register(connectionRoutes, {
      sessions,
      connections,
      now,
      checkToken: (region, credentials) => api.token(region, credentials, 'sign-in'),
      audit: new LedgerConnectionAudit(ledger.store, now, 2 * http.timeoutMs + 5000),
    });
  }
  productApiRoutes(app, {
    sessions,
    upstream: api,
    ledger,
    sites,
    zones,
    now,
    writePath,
    notifications,
    deviceCommands,
    readModel,
  });
  // The overview places windows on the vendor's clock (the sandbox's under `npm start`), which
  // starts and ends them; tests that give only `now` move that.
  const vendorNow = options.upstreamClock ?? now;
  overviewRoutes(app, {
    sessions,
    now: vendorNow,
    overview: new LedgerOverviewSource({
      ledger,
      readModel,
      sites,
      // The jobs as stored: no upstream read (the job page refreshes its statuses).
      fleetJobs: (session: Session) => fleetJobs.list(session),
      now,
    }),
  });
  await app.register(fleetRoutes, { sessions, upstream: api, jobs: fleetJobs });
  await app.register(eventRoutes, { sessions, events: accountEvents });
  await app.register(notificationRoutes, {
    sessions,
    notifications,
    testRoutes: options.testRoutes,
  });
  await app.register(healthRoutes, {
    database: storage.handle,
    circuits: () => resilience.states(),
    fleetJobs: () => fleetQueue.state,
  });

  if (options.staticDir) await installStaticSpa(app, options.staticDir);
  return app;
}
