import type { FastifyBaseLogger } from 'fastify';
import { DEFAULT_DEVICE_CALLS_PER_WINDOW, type DeviceBudgets } from '#domain/device-budget.ts';
import { DEFAULT_REFRESH_SETTINGS } from '#domain/refresh-policy.ts';
import { ChangeQueue } from './budget/change-queue.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from './budget/device-budget-store.ts';
import { QueuedChangeStore } from './budget/queued-change-store.ts';
import { recordsOfKey, type KeyLookup } from './db/idempotency-records.ts';
import { JobQueueHost } from './db/job-queue.ts';
import { DatabaseSiteZones } from './db/site-zones.ts';
import { openBffStorage, type BffStorage } from './db/storage.ts';
import { AccountEvents } from './events/account-events.ts';
import { AnnouncedSessionStore } from './events/session-ends.ts';
import { FleetJobs } from './fleet/fleet-jobs.ts';
import { FleetOutcomes } from './fleet/fleet-outcomes.ts';
import { FleetQueue } from './fleet/fleet-queue.ts';
import { FleetRunner } from './fleet/fleet-runner.ts';
import { FleetStore } from './fleet/fleet-store.ts';
import { budgetedHistory } from './ledger/budgeted-history.ts';
import { LedgerConnectionAudit } from './ledger/connection-audit.ts';
import type { DeviceCommandsRecorder } from './ledger/device-commands-recorder.ts';
import { Ledger } from './ledger/ledger.ts';
import { LedgerStore } from './ledger/ledger-store.ts';
import { Notifications } from './notifications/notifications.ts';
import {
  failedStepKey,
  queuedChangeListener,
  queuedChangeWebhook,
} from './product-api/change-events.ts';
import { LedgerOverviewSource, type OverviewSource } from './product-api/overview-source.ts';
import { ChangeService } from './changes/change-service.ts';
import { ChangeSteps } from './changes/change-steps.ts';
import { queuedStepSender } from './changes/queued-step-sender.ts';
import { WritePath } from './product-api/write-path.ts';
import { DeviceReads } from './read-model/device-reads.ts';
import { BudgetedTelemetry } from './telemetry/budgeted-telemetry.ts';
import { CommandVerification } from './telemetry/command-verification.ts';
import { FleetSnapshots } from './telemetry/fleet-snapshots.ts';
import { LatestSampleStore } from './telemetry/latest-sample-store.ts';
import { VerdictQueue } from './telemetry/verdict-queue.ts';
import { VerdictStore } from './telemetry/verdict-store.ts';
import { ReadModel } from './read-model/read-model.ts';
import { ReadModelStore } from './read-model/read-model-store.ts';
import type { ServerOptions } from './server-options.ts';
import { DatabaseSessionStore } from './session/database-session-store.ts';
import { OidcClient } from './session/oidc.ts';
import { SecretBox, loadSessionKey } from './session/secret-box.ts';
import { sessionCookieFor, type SessionCookie } from './session/session-cookie.ts';
import { SESSION_ABSOLUTE_TIMEOUT_MS, type Session } from './session/session-store.ts';
import { Sessions } from './session/sessions.ts';
import { ApiTokenStore } from './api-tokens/api-token-store.ts';
import { VendorConnections } from './session/vendor-connections.ts';
import { LedgerWebhookAudit } from './ledger/webhook-audit.ts';
import { WebhookOutbox } from './webhooks/webhook-outbox.ts';
import { WebhookQueue } from './webhooks/webhook-queue.ts';
import { WebhookSender } from './webhooks/webhook-sender.ts';
import { WebhookStore } from './webhooks/webhook-store.ts';
import { MAX_ATTEMPTS, UpstreamResilience } from './upstream/resilience.ts';
import { SiteDirectory } from './upstream/site-directory.ts';
import { TokenCache } from './upstream/token-cache.ts';
import { UpstreamApi, type KnownCommandSource } from './upstream/upstream-api.ts';
import { UpstreamClient } from './upstream/upstream-client.ts';
import { UpstreamHttp } from './upstream/upstream-http.ts';

/**
 * Every service of the BFF, built by {@link composeServices}. The route groups (`routes.ts`) and
 * the app's start and stop (`app.ts`) take what they need from it
 * (docs/decisions/010-one-composition-of-services.md). Nothing in it is optional but company
 * sign-in, which is configured or not.
 */
export interface Services {
  /** The database, and whether the BFF opened it (and so closes it). */
  storage: BffStorage;
  /** Seals the secrets the database keeps, with the session key. */
  box: SecretBox;
  /** The session cookie's name and attributes, from the public origin. */
  cookie: SessionCookie;
  /** Clock of sessions and tokens, epoch ms. */
  now: () => number;
  /** The upstream's clock, epoch ms: the budget, queued changes and the read model count on it. */
  upstreamNow: () => number;
  /** The vendor's clock the overview places windows on, epoch ms. */
  vendorNow: () => number;
  events: AccountEvents;
  notifications: Notifications;
  sessions: Sessions;
  /** API tokens, stored hashed (docs/security.md, API tokens). */
  apiTokens: ApiTokenStore;
  /** Company sign-in (`OIDC_ISSUER`); absent when operators sign in with client credentials. */
  companySignIn:
    { oidc: OidcClient; connections: VendorConnections; audit: LedgerConnectionAudit } | undefined;
  http: UpstreamHttp;
  resilience: UpstreamResilience;
  tokens: TokenCache;
  /** The adapter, the only code that knows the vendor (decision 006). */
  upstream: UpstreamApi;
  sites: SiteDirectory;
  zones: DatabaseSiteZones;
  /** Each region's budget of upstream calls per device (decision 007, section 1). */
  deviceBudgets: DeviceBudgets;
  budget: DeviceBudgetStore;
  readModel: ReadModel;
  /** The read model as the ledger and the stale view refusal see it. */
  deviceCommands: DeviceCommandsRecorder;
  /** The refresher that reads devices' histories within their budget. */
  deviceReads: DeviceReads;
  ledger: Ledger;
  /** The one pg-boss both queues run on. */
  jobQueues: JobQueueHost;
  fleetQueue: FleetQueue;
  fleetJobs: FleetJobs;
  queuedChanges: QueuedChangeStore;
  changeQueue: ChangeQueue;
  writePath: WritePath;
  overview: OverviewSource;
  /** A verdict per device per command, after its window (docs/architecture.md, Verification). */
  verification: CommandVerification;
  verdictQueue: VerdictQueue;
  /** Every bound device's latest sample, for the fleet picture (docs/verification.md). */
  fleetSnapshots: FleetSnapshots;
  /** Telemetry reads inside the device budget: verification, the snapshots. */
  telemetry: BudgetedTelemetry;
  /** Outgoing webhooks (docs/architecture.md, Webhooks): endpoints, the outbox, the delivery. */
  webhooks: {
    store: WebhookStore;
    outbox: WebhookOutbox;
    queue: WebhookQueue;
    audit: LedgerWebhookAudit;
    /** The webhooks' clock, epoch ms. */
    now: () => number;
    allowPrivateAddresses: boolean;
  };
}

/**
 * Builds every service of the BFF, the same way whatever the configuration but company sign-in
 * (docs/decisions/010-one-composition-of-services.md): opens and migrates the database
 * (`db/storage.ts`), then sessions, live updates and notifications, the adapter with its token
 * cache and circuits, the budget, the read model and its refresher, the ledger, both queues and
 * the write path. Starts nothing: `buildServerApp` starts and stops them with the app.
 *
 * @param log the app's logger, which every service logs through.
 * @throws when the database cannot be opened or migrated, or the session key cannot be loaded.
 */
export async function composeServices(
  options: ServerOptions,
  log: FastifyBaseLogger,
): Promise<Services> {
  const testing = options.testing ?? {};
  const now = testing.now ?? Date.now;
  const cookie = sessionCookieFor(options.publicOrigin ?? 'http://127.0.0.1');

  const storage = await openBffStorage(options);
  const box = new SecretBox(await loadSessionKey(options));
  const accountEvents = new AccountEvents({
    handle: storage.handle,
    now,
    log,
    heartbeatMs: testing.liveUpdates?.heartbeatMs,
    listener: testing.liveUpdates?.listener,
  });
  const notifications = new Notifications({
    db: storage.handle.db,
    events: accountEvents,
    now,
    log,
  });
  // A session that ends closes its live update streams on every instance.
  const store = new AnnouncedSessionStore(new DatabaseSessionStore(storage.handle.db, box), (id) =>
    accountEvents.sessionEnded(id),
  );
  // Company sign-in is the one part configured or not (`OIDC_ISSUER`): everything else is built
  // whatever the configuration, as production runs it.
  const connections = options.oidc ? new VendorConnections(storage.handle.db, box) : undefined;
  const oidc = options.oidc
    ? new OidcClient(options.oidc, {
        publicOrigin: options.publicOrigin ?? 'http://127.0.0.1',
        now,
        fetch: testing.oidcFetch,
        log,
      })
    : undefined;

  // Outgoing webhooks: every source writes its events to the outbox in its own transaction.
  const webhookNow = testing.webhookNow ?? now;
  const webhookOutbox = new WebhookOutbox(storage.handle.db, webhookNow);

  // The read model (docs/architecture.md, Read model) plans on the upstream's clock.
  const upstreamNow = options.upstreamClock ?? Date.now;
  const ledgerStore = new LedgerStore(storage.handle.db);
  const keys: KeyLookup = (owner, key) => recordsOfKey(storage.handle.db, owner, key);
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
    log,
    box,
    webhooks: webhookOutbox,
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
    { log, unknownLifetimeKeepMs: SESSION_ABSOLUTE_TIMEOUT_MS },
  );
  const sessions: Sessions = new Sessions({
    store,
    tokens,
    cookie,
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
    log,
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
    log,
    hooks: testing.ledgerHooks,
  });

  // One pg-boss for both queues (fleet job steps, queued changes): two instances starting at once
  // on PGlite's one connection would interleave their transactions.
  const superviseIntervals = [testing.fleetQueue, testing.changeQueue].flatMap((queue) =>
    queue?.superviseIntervalSeconds === undefined ? [] : [queue.superviseIntervalSeconds],
  );
  const jobQueues = new JobQueueHost(storage.handle, log, {
    superviseIntervalSeconds:
      superviseIntervals.length > 0 ? Math.min(...superviseIntervals) : undefined,
  });
  // Every change to a device is sent as steps through the ledger, inside the budget: by the
  // routes, the queue and fleet jobs alike.
  const changeSteps = new ChangeSteps({ ledger, upstream: api, budget, upstreamNow });
  const fleetStore = new FleetStore(storage.handle.db, webhookOutbox);
  const fleetQueue = new FleetQueue(
    storage.handle,
    new FleetRunner({
      store: fleetStore,
      ledger,
      steps: changeSteps,
      box,
      now,
      forgetCaller: (callerId) => tokens.drop(callerId),
      hooks: testing.fleetHooks,
      retryWaitCapMs: testing.fleetRetryWaitCapMs,
    }),
    log,
    { ...testing.fleetQueue, host: jobQueues },
  );
  const fleetJobs = new FleetJobs({
    store: fleetStore,
    keys,
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
      log,
    }),
  });
  // The durable queue of changes: what the budget cannot carry now waits there, sent through the
  // ledger when its devices have a slot (docs/decisions/007-device-call-budget.md, section 2).
  const queuedChanges = new QueuedChangeStore(storage.handle.db, budget, {
    onEnded: queuedChangeWebhook({
      webhooks: webhookOutbox,
      siteOfDevice: async (account, deviceId, tx) =>
        (await readModel.stateOf(account, deviceId, tx))?.siteId ?? undefined,
    }),
  });
  const changeQueue = new ChangeQueue({
    handle: storage.handle,
    host: jobQueues,
    store: queuedChanges,
    budget,
    send: queuedStepSender({
      steps: changeSteps,
      upstream: api,
      box,
      now,
      budget,
      upstreamNow,
    }),
    upstreamNow,
    log,
    options: testing.changeQueue,
    onChange: queuedChangeListener({
      events: accountEvents,
      notifications,
      forgetCaller: (callerId) => tokens.drop(callerId),
      log,
      siteOf: async (row) => {
        const key = failedStepKey(row);
        const entry = key ? await ledger.store.findByKey(row.owner, key) : undefined;
        return { siteId: entry?.siteId ?? undefined, timeZone: entry?.timeZone ?? undefined };
      },
    }),
  });
  const writePath = new WritePath(
    new ChangeService({
      ledger,
      steps: changeSteps,
      budget,
      queue: changeQueue,
      keys,
      box,
      sites,
      upstreamNow,
      // A change naming a device version is checked against the read model (decision 007, 5).
      versions: deviceCommands,
      // A new window is checked against the commands it knows before it is sent or queued.
      knownCommands,
      settleWaitMs: testing.changeSettleWaitMs,
      webhooks: webhookOutbox,
    }),
  );
  const deviceReads = new DeviceReads({
    model: readModel,
    budget,
    upstream: api,
    now: upstreamNow,
    log,
    tickMs: testing.readModelTickMs,
    leaseMs: testing.readModelLeaseMs,
  });
  const telemetry = new BudgetedTelemetry({ budget, upstream: api, upstreamNow });
  // After each window, one budgeted telemetry read of each device and its verdict, planned from
  // every command the read model learns (docs/verification.md).
  const verification = new CommandVerification({
    store: new VerdictStore(storage.handle.db, webhookOutbox),
    model: readModel,
    telemetry,
    devices: (caller, deviceIds) => sites.devices(caller, deviceIds),
    events: accountEvents,
    notifications,
    now: upstreamNow,
    log,
  });
  readModel.onChange((change) => verification.plan(change));
  const verdictQueue = new VerdictQueue({
    handle: storage.handle,
    host: jobQueues,
    verification,
    upstreamNow,
    log,
    options: testing.verdictQueue,
  });
  // Each bound device's latest sample every five minutes, one call per 100 devices.
  const fleetSnapshots = new FleetSnapshots({
    store: new LatestSampleStore(storage.handle.db),
    model: readModel,
    telemetry,
    events: accountEvents,
    now: upstreamNow,
    log,
    tickMs: testing.fleetSnapshotTickMs,
    periodMs: options.fleetSnapshotEveryMs,
  });
  // The overview places windows on the vendor's clock (the sandbox's under `npm start`), which
  // starts and ends them; tests that give only `now` move that.
  const vendorNow = options.upstreamClock ?? now;
  const overview = new LedgerOverviewSource({
    ledger,
    readModel,
    sites,
    // The jobs as stored: no upstream read (the job page refreshes its statuses).
    fleetJobs: (session: Session) => fleetJobs.list(session),
    now,
  });
  const webhookStore = new WebhookStore(storage.handle.db);
  const allowPrivateAddresses = options.webhooksAllowPrivateAddresses ?? false;
  const webhookQueue = new WebhookQueue({
    handle: storage.handle,
    host: jobQueues,
    store: webhookStore,
    sender: new WebhookSender({ allowPrivateAddresses }),
    box,
    notifications,
    now: webhookNow,
    wallNow: Date.now,
    log,
    options: testing.webhookQueue,
  });
  webhookOutbox.onWritten(() => webhookQueue.nudge());
  const companySignIn =
    oidc && connections
      ? {
          oidc,
          connections,
          audit: new LedgerConnectionAudit(ledger.store, now, 2 * http.timeoutMs + 5000),
        }
      : undefined;

  return {
    storage,
    box,
    cookie,
    now,
    upstreamNow,
    vendorNow,
    events: accountEvents,
    notifications,
    sessions,
    apiTokens: new ApiTokenStore(storage.handle.db),
    companySignIn,
    http,
    resilience,
    tokens,
    upstream: api,
    sites,
    zones,
    deviceBudgets,
    budget,
    readModel,
    deviceCommands,
    deviceReads,
    ledger,
    jobQueues,
    fleetQueue,
    fleetJobs,
    queuedChanges,
    changeQueue,
    writePath,
    overview,
    verification,
    verdictQueue,
    fleetSnapshots,
    telemetry,
    webhooks: {
      store: webhookStore,
      outbox: webhookOutbox,
      queue: webhookQueue,
      audit: new LedgerWebhookAudit(ledger.store, webhookNow),
      now: webhookNow,
      allowPrivateAddresses,
    },
  };
}
