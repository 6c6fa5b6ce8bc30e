import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { batchRoutes } from './batch-routes.ts';
import { changeRoutes } from './change-routes.ts';
import { commandRoutes } from './command-routes.ts';
import {
  declareCommonAnswers,
  problemResponse,
  productValidatorCompiler,
  type ProductApiDeps,
} from './declare.ts';
import { declareTokenSecurity, tokenUse } from '../http/token-use.ts';
import { ledgerRoutes } from './ledger-routes.ts';
import { announceNextCall } from './next-call.ts';
import { siteRoutes } from './site-routes.ts';
import { verdictRoutes } from './verdict-routes.ts';

export const OPENAPI_PATH = '/api/openapi.json';

/**
 * Decision 006, section 3. Call it before any route is registered, so the OpenAPI document sees
 * them all.
 */
export async function installProductApi(app: FastifyInstance): Promise<void> {
  // Before the document's own hook, so it reads every route with its common answers.
  declareCommonAnswers(app);
  declareTokenSecurity(app);
  app.setValidatorCompiler(productValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('productSession', null);
  app.decorateRequest('signedInSession', null);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'powerdeck',
        version: '1.0.0',
        description:
          "powerdeck's own API, in the product's terms: sign-in and the session, bound sites with their clocks, device commands, batches, the command ledger, the overview, queued changes, fleet jobs and dispatch plans, live updates and notifications, and in company sign-in the vendor connections. A script or another system sends `Authorization: Bearer <API token>` (docs/automation.md) to the operations that list `apiToken` under security, with the lowest role each needs. State-changing calls with a cookie need `X-CSRF: 1` and the page's Origin, and may carry `Idempotency-Key`, `Powerdeck-Undo-Of` and `Powerdeck-Device-Version` (the device's version the change was made against). Every change goes through its devices' budget of upstream calls: one that cannot go now is queued and answered 202 `{ queued: { changeId, goesAt } }`, or refused 409 `change_would_wait` when the request says `ifLater=refuse`. An answer about a device to an API token carries `Powerdeck-Next-Call-At`, when the device next has an upstream call free. Errors are `application/problem+json` with a stable `code`.",
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'powerdeck_session' },
          apiToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An API token an administrator made (`pdk_...`; docs/automation.md). A route that takes tokens lists `apiToken` with the lowest role it needs; no CSRF proof is needed without a cookie.',
          },
        },
      },
      security: [{ session: [] }],
    },
    hideUntagged: true,
    transform: jsonSchemaTransform,
  });
  app.get(
    OPENAPI_PATH,
    {
      config: tokenUse('read', 'public'),
      schema: {
        tags: ['meta'],
        summary: "This document: the product's OpenAPI 3.1 description",
        security: [],
        response: {
          200: z
            .looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) })
            .describe('The OpenAPI document'),
          401: problemResponse(
            'An API token was sent that is unknown, revoked or expired (`token_*`).',
          ),
          429: problemResponse("The API token's requests are over its limit per minute."),
        },
      },
    },
    async () => app.swagger(),
  );
}

/** The product API's routes (decision 006, section 3), as one route group. */
export async function productApiRoutes(app: FastifyInstance, deps: ProductApiDeps): Promise<void> {
  announceNextCall(app, deps.writePath);
  siteRoutes(app, deps);
  commandRoutes(app, deps);
  batchRoutes(app, deps);
  ledgerRoutes(app, deps);
  changeRoutes(app, deps);
  verdictRoutes(app, deps);
}
