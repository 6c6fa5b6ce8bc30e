import type { FastifyInstance } from 'fastify';

/** One registered route: method and URL pattern as the router holds them. */
export interface RouteEntry {
  method: string;
  url: string;
  /** Left out of the OpenAPI document (`schema.hide`): a path's 405 answer to other methods. */
  hidden: boolean;
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/**
 * Records every route the router registers from now on (Fastify `onRoute`), so tests check the
 * CSRF defence against the router's own table rather than a hand-written list, which a new
 * route could be missing from.
 */
export function trackRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of methods) table.push({ method, url: route.url, hidden });
  });
}

/** The routes of an app built by `buildServerApp`, in registration order. */
export function routeTable(app: FastifyInstance): readonly RouteEntry[] {
  return tables.get(app) ?? [];
}
