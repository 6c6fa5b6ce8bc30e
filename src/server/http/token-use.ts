import type { FastifyInstance } from 'fastify';
import type { ApiTokenReach } from '#domain/api-tokens.ts';
import { LOWEST_ROLE, type Permission } from '#domain/roles.ts';

/** What a route lets an API token do (docs/security.md, API tokens). */
export interface ApiTokenUse {
  /** The lowest permission the token's role must hold; `public` routes need none. */
  permission: Permission;
  reach: ApiTokenReach;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Absent: the route refuses API tokens (403 `token_not_accepted`). */
    apiToken?: ApiTokenUse;
  }
}

/**
 * A route's `config`: what an API token needs to use it (checked by
 * `api-tokens/api-token-auth.ts`). Every route that takes tokens says so; a route without it
 * refuses them.
 */
export function tokenUse(permission: Permission, reach: ApiTokenReach): { apiToken: ApiTokenUse } {
  return { apiToken: { permission, reach } };
}

/**
 * Declares in the OpenAPI document (OpenAPI 3.1, Security Requirement Object: role names for a
 * non-OAuth scheme) the lowest role a token needs for each route that takes tokens. Call it
 * before `@fastify/swagger` is registered.
 */
export function declareTokenSecurity(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.schema || (route.schema as { hide?: boolean }).hide === true) return;
    const use = route.config?.apiToken;
    const schema = route.schema as { security?: unknown[] };
    // A route that declares its own security (none: the document, health) keeps it.
    if (!use || use.reach === 'public' || schema.security) return;
    schema.security = [{ session: [] }, { apiToken: [LOWEST_ROLE[use.permission]] }];
  });
}
