import type { FastifyInstance } from 'fastify';
import { TOKEN_PATH } from '../../domain/token.ts';
import type { RegionContext } from '../http/region-context.ts';
import { batchRoutes } from './batch-routes.ts';
import { commandRoutes } from './command-routes.ts';
import { siteRoutes } from './site-routes.ts';
import { tokenRoute } from './token-route.ts';

/**
 * One region's API under its prefix (`/eu`, `/au`; docs/architecture.md, Upstream contract: Regions
 * and tokens): counts each request, applies the injected latency and errors, then the token
 * endpoint and the spec 4 operations.
 */
export async function regionRoutes(app: FastifyInstance, context: RegionContext): Promise<void> {
  const prefix = `/${context.region}`;
  app.addHook('onRequest', async (request) => {
    const pattern = request.routeOptions.url ?? '(unknown route)';
    const route = pattern.startsWith(prefix) ? pattern.slice(prefix.length) : pattern;
    context.faults.count(`${context.region} ${request.method} ${route}`, route === TOKEN_PATH);
    await context.faults.beforeRequest();
  });
  await tokenRoute(app, context);
  await siteRoutes(app, context);
  await commandRoutes(app, context);
  await batchRoutes(app, context);
}
