import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ChangeQueue } from './budget/change-queue.ts';
import type { CommandVerification } from './telemetry/command-verification.ts';
import type { FleetSnapshots } from './telemetry/fleet-snapshots.ts';
import type { VerdictQueue } from './telemetry/verdict-queue.ts';
import type { WebhookQueue } from './webhooks/webhook-queue.ts';
import type { AccountEvents } from './events/account-events.ts';
import { installErrorHandling } from './http/error-handling.ts';
import { lazyChildLoggerFactory } from './http/lazy-child-logger.ts';
import { trackRoutes } from './http/route-table.ts';
import { installRequestGuards } from './http/request-guards.ts';
import { installApiTokenAuth } from './api-tokens/api-token-auth.ts';
import { installSecurityHeaders } from './http/security-headers.ts';
import { installStaticSpa } from './http/static-spa.ts';
import type { DeviceCommandsRecorder } from './ledger/device-commands-recorder.ts';
import type { Notifications } from './notifications/notifications.ts';
import { installProductApi } from './product-api/product-api.ts';
import type { DeviceReads } from './read-model/device-reads.ts';
import type { ReadModel } from './read-model/read-model.ts';
import { registerRouteGroups } from './routes.ts';
import type { ServerOptions } from './server-options.ts';
import { composeServices, type Services } from './services.ts';

export type { DatabaseOption, ServerOptions, ServerTestingOptions } from './server-options.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Starts the fleet job queue now, not {@link FLEET_QUEUE_START_DELAY_MS} after `ready()`;
     * resolves once it runs or the app closes, retrying a failed start; never rejects. For tests.
     */
    fleetJobsStarted(): Promise<void>;
    /** Starts the queue of changes now, as `fleetJobsStarted` the fleet's; never rejects. */
    changeQueueStarted(): Promise<void>;
    /** For tests, which `recheck()` it after moving the upstream clock. */
    changeQueue: ChangeQueue;
    /** This BFF's account events and notification inbox (docs/architecture.md, Live updates). */
    liveUpdates: { events: AccountEvents; notifications: Notifications };
    /** The upstream's clock, epoch ms, on which budget and queue count (src/server/README.md). */
    upstreamNow(): number;
    /**
     * Forgets what the BFF learnt of the upstream's devices: the calls it spent of each device's
     * budget, its busy marks, the read model's commands, and the changes queued for them. For an
     * upstream that has just forgotten them itself (the sandbox's admin reset beside `npm start`).
     */
    forgetUpstream(): Promise<void>;
    /** The read model of device commands (docs/architecture.md, Read model). */
    deviceCommands: DeviceCommandsRecorder;
    /** The read model and its refresher, which tests `runDue()` after moving the clock. */
    readModel: { model: ReadModel; reads: DeviceReads };
    /** The verdicts and their queue, which tests `recheck()` after moving the clock. */
    verdicts: { verification: CommandVerification; queue: VerdictQueue };
    /** The latest samples of bound devices, which tests `runDue()` after moving the clock. */
    fleetSnapshots: FleetSnapshots;
    /** Outgoing webhooks' queue, which tests `recheck()` after moving the webhooks' clock. */
    webhookQueue: WebhookQueue;
  }
}

/** How long after the app is ready the fleet job queue starts, ms (see `buildServerApp`). */
export const FLEET_QUEUE_START_DELAY_MS = 1_000;

/** Largest request body the BFF reads: a 50-device batch is about 4 KiB, so 64 KiB is ample. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Builds the BFF, not listening (docs/architecture.md, Parts and data flow; BFF surface). When
 * `publicOrigin` is absent or has port 0, the expected Origin is the address the app listens on,
 * so tests can listen on an ephemeral port.
 */
export async function buildServerApp(options: ServerOptions): Promise<FastifyInstance> {
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

  const services = await composeServices(options, app.log);
  startAndStopWithApp(app, services);
  decorateFromServices(app, services);

  trackRoutes(app);
  app.decorateRequest('sessionLookup', null);
  app.removeContentTypeParser('text/plain');
  await app.register(cookie);
  // Before the first route (the OpenAPI document's): a route keeps the error handler it was added
  // under, and a refused API token is a problem on that route too.
  installErrorHandling(app, { spaFallback: options.staticDir !== undefined });
  await installProductApi(app);
  await installSecurityHeaders(app, { https: services.cookie.secure });
  installRequestGuards(app, publicOrigin);
  // After the CSRF guard, before every route's session hook.
  await installApiTokenAuth(app, {
    store: services.apiTokens,
    sessions: services.sessions,
    sites: services.sites,
    box: services.box,
    now: services.now,
    requestsPerMinute: options.testing?.apiTokenRequestsPerMinute,
  });

  await registerRouteGroups(app, services, {
    publicOrigin,
    testRoutes: options.testRoutes,
    signInLimits: options.testing?.signInLimits,
  });

  if (options.staticDir) await installStaticSpa(app, options.staticDir);
  return app;
}

/** Starts the services when the app is ready; stops them, and a database it opened, on close. */
function startAndStopWithApp(app: FastifyInstance, services: Services): void {
  const { events, notifications, deviceReads, fleetQueue, changeQueue, jobQueues, verdictQueue } =
    services;
  const { fleetSnapshots } = services;
  // Started later so the first requests are not held up (decision 005, Consequences); start()
  // never rejects: failures are logged and tried again.
  let queueStartTimer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    queueStartTimer = setTimeout(() => {
      void fleetQueue.start();
      void changeQueue.start();
      void verdictQueue.start();
      void services.webhooks.queue.start();
    }, FLEET_QUEUE_START_DELAY_MS);
    queueStartTimer.unref();
  });
  app.addHook('onReady', async () => {
    await events.start();
    notifications.startPruning();
    // Its first look comes a tick later; reads never hold up the first answers.
    deviceReads.start();
    fleetSnapshots.start();
  });

  // While shutting down, answers close their connection so close() need not wait for keep-alive.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    // Open event streams would keep the server from closing; their browsers reconnect elsewhere.
    await events.close();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onClose', async () => {
    clearTimeout(queueStartTimer);
    await deviceReads.stop();
    await fleetSnapshots.stop();
    notifications.stopPruning();
    await fleetQueue.stop();
    await changeQueue.stop();
    await verdictQueue.stop();
    await services.webhooks.queue.stop();
    await jobQueues.stop();
    await services.http.close();
    if (services.storage.owned) await services.storage.handle.close();
  });
}

function decorateFromServices(app: FastifyInstance, services: Services): void {
  const { fleetQueue, changeQueue, readModel } = services;
  app.decorate('fleetJobsStarted', () => fleetQueue.start());
  app.decorate('changeQueueStarted', () => changeQueue.start());
  app.decorate('changeQueue', changeQueue);
  app.decorate('upstreamNow', services.upstreamNow);
  app.decorate('forgetUpstream', async () => {
    await services.queuedChanges.forgetAll();
    await services.budget.forgetAll();
    await readModel.store.forgetAll();
    await services.verification.store.forgetAll();
    await services.fleetSnapshots.store.forgetAll();
  });
  app.decorate('deviceCommands', services.deviceCommands);
  app.decorate('readModel', { model: readModel, reads: services.deviceReads });
  app.decorate('verdicts', {
    verification: services.verification,
    queue: services.verdictQueue,
  });
  app.decorate('fleetSnapshots', services.fleetSnapshots);
  app.decorate('webhookQueue', services.webhooks.queue);
  app.decorate('liveUpdates', { events: services.events, notifications: services.notifications });
}
