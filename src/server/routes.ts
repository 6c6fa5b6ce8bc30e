import type { FastifyInstance, FastifyPluginAsync, FastifyPluginOptions } from 'fastify';
import { eventRoutes } from './events/event-routes.ts';
import { fleetRoutes } from './fleet/fleet-routes.ts';
import { healthRoutes } from './http/health-routes.ts';
import { notificationRoutes } from './notifications/notification-routes.ts';
import { deliverableRoutes } from './product-api/deliverable-routes.ts';
import { fleetPictureRoutes } from './product-api/fleet-picture-routes.ts';
import { overviewRoutes } from './product-api/overview-routes.ts';
import { productApiRoutes } from './product-api/product-api.ts';
import type { Services } from './services.ts';
import { connectionRoutes } from './session/connection-routes.ts';
import { apiTokenRoutes } from './api-tokens/api-token-routes.ts';
import { oidcRoutes } from './session/oidc-routes.ts';
import { webhookRoutes } from './webhooks/webhook-routes.ts';
import { sessionRoutes } from './session/session-routes.ts';
import type { SignInLimitOptions } from './session/sign-in-limits.ts';

/** A route group with the options it is registered with. */
type RouteGroup = (app: FastifyInstance) => PromiseLike<unknown>;

const group =
  <Options extends FastifyPluginOptions>(
    plugin: FastifyPluginAsync<Options>,
    options: Options,
  ): RouteGroup =>
  (app) =>
    app.register(plugin, options);

/**
 * Registers every route group of the BFF, one way: each is a Fastify plugin given the services it
 * needs, registered in this list's order (docs/decisions/010-one-composition-of-services.md).
 * Company sign-in's groups are the only ones registered or not, by whether it is configured.
 *
 * @param options.publicOrigin the origin the browser uses, for company sign-in's redirects.
 */
export async function registerRouteGroups(
  app: FastifyInstance,
  services: Services,
  options: {
    publicOrigin: () => string;
    /** The notification routes tests use (`TEST_ROUTES`). */
    testRoutes: boolean | undefined;
    /** Sign-in rate limits; tests set them (`ServerTestingOptions`). */
    signInLimits: SignInLimitOptions | undefined;
  },
): Promise<void> {
  const { sessions, cookie, now, box, upstream, companySignIn } = services;
  const groups: RouteGroup[] = [
    group(sessionRoutes, {
      sessions,
      cookie,
      limits: options.signInLimits ?? {},
      now,
      oidc: companySignIn?.oidc,
      box,
      deviceBudgets: services.deviceBudgets,
    }),
    ...(companySignIn
      ? [
          group(oidcRoutes, {
            sessions,
            oidc: companySignIn.oidc,
            box,
            cookie,
            publicOrigin: options.publicOrigin,
          }),
          group(connectionRoutes, {
            sessions,
            connections: companySignIn.connections,
            now,
            checkToken: (region, credentials) => upstream.token(region, credentials, 'sign-in'),
            audit: companySignIn.audit,
          }),
        ]
      : []),
    group(productApiRoutes, {
      sessions,
      upstream,
      ledger: services.ledger,
      sites: services.sites,
      zones: services.zones,
      now,
      writePath: services.writePath,
      notifications: services.notifications,
      deviceCommands: services.deviceCommands,
      readModel: services.readModel,
      verdicts: services.verification.store,
      runningWindows: services.verification,
    }),
    group(overviewRoutes, { sessions, now: services.vendorNow, overview: services.overview }),
    group(fleetPictureRoutes, {
      sessions,
      now: services.vendorNow,
      overview: services.overview,
      latest: services.fleetSnapshots.store,
      verdicts: services.verification.store,
    }),
    group(deliverableRoutes, {
      sessions,
      now: services.upstreamNow,
      sites: services.sites,
      latest: services.fleetSnapshots.store,
      verdicts: services.verification.store,
      telemetry: services.telemetry,
    }),
    group(fleetRoutes, {
      sessions,
      upstream,
      jobs: services.fleetJobs,
      verdicts: services.verification.store,
    }),
    group(apiTokenRoutes, { sessions, store: services.apiTokens, box, sites: services.sites, now }),
    group(webhookRoutes, { sessions, box, sites: services.sites, ...services.webhooks }),
    group(eventRoutes, { sessions, events: services.events }),
    group(notificationRoutes, {
      sessions,
      notifications: services.notifications,
      testRoutes: options.testRoutes,
    }),
    group(healthRoutes, {
      database: services.storage.handle,
      circuits: () => services.resilience.states(),
      fleetJobs: () => services.fleetQueue.state,
    }),
  ];
  for (const register of groups) await register(app);
}
