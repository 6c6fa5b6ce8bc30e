import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  method: string;
  url: string;
  /** `schema.hide`: a path's 405 answer to other methods. */
  hidden: boolean;
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/** So tests check the CSRF defence against the router's own table, not a hand-written list. */
export function trackRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of methods) table.push({ method, url: route.url, hidden });
  });
}

export function routeTable(app: FastifyInstance): readonly RouteEntry[] {
  return tables.get(app) ?? [];
}
