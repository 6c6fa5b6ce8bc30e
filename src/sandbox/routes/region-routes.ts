import type { FastifyInstance } from 'fastify';
import { installEnvelope } from '../http/envelope.ts';
import { noRoute, sendError } from '../http/error-handling.ts';
import type { RegionContext } from '../http/region-context.ts';
import { API_BASE_PATH, TOKEN_PATH } from '../vendor/schemas.ts';
import { batchRoutes } from './batch-routes.ts';
import { commandRoutes } from './command-routes.ts';
import { siteRoutes } from './site-routes.ts';
import { telemetryRoutes } from './telemetry-routes.ts';
import { tokenRoute } from './token-route.ts';

/**
 * The request counter's key of a route pattern: the region, the method and the path relative to
 * the base URL (`eu GET /devices/:deviceId/commands/:commandId`), or the token path.
 */
function statsRoute(prefix: string, pattern: string): string {
  const inRegion = pattern.startsWith(prefix) ? pattern.slice(prefix.length) : pattern;
  return inRegion.startsWith(`${API_BASE_PATH}/`) ? inRegion.slice(API_BASE_PATH.length) : inRegion;
}

/**
 * One region's API under its prefix (`/eu`, `/au`; docs/upstream.md, Sources and base paths):
 * counts each request, applies the injected latency and errors, then serves the token endpoint at
 * `/api/auth/oauth2/token` and the business operations under `/api/openapi/v1`, where the
 * `envelope` dialect applies.
 */
export async function regionRoutes(app: FastifyInstance, context: RegionContext): Promise<void> {
  const prefix = `/${context.region}`;
  app.addHook('onRequest', async (request) => {
    const route = statsRoute(prefix, request.routeOptions.url ?? '(unknown route)');
    const key = `${context.region} ${request.method} ${route}`;
    context.faults.count(key, route === TOKEN_PATH);
    await context.faults.beforeRequest(key);
  });
  await tokenRoute(app, context);
  await app.register(
    async (business) => {
      installEnvelope(business, context.dialect);
      business.setNotFoundHandler(async (request, reply) =>
        sendError(reply, noRoute(request), request, context.state.nowMs()),
      );
      await siteRoutes(business, context);
      await commandRoutes(business, context);
      await batchRoutes(business, context);
      await telemetryRoutes(business, context);
    },
    { prefix: API_BASE_PATH },
  );
}
