import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { batchRoutes } from './batch-routes.ts';
import { changeRoutes } from './change-routes.ts';
import { commandRoutes } from './command-routes.ts';
import { declareCommonAnswers, productValidatorCompiler, type ProductApiDeps } from './declare.ts';
import { ledgerRoutes } from './ledger-routes.ts';
import { siteRoutes } from './site-routes.ts';

export const OPENAPI_PATH = '/api/openapi.json';

/**
 * Decision 006, section 3. Call it before any route is registered, so the OpenAPI document sees
 * them all.
 */
export async function installProductApi(app: FastifyInstance): Promise<void> {
  // Before the document's own hook, so it reads every route with its common answers.
  declareCommonAnswers(app);
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
          "powerdeck's own API, in the product's terms: sign-in and the session, bound sites with their clocks, device commands, batches, the command ledger, the overview, queued changes, fleet jobs and dispatch plans, live updates and notifications, and in company sign-in the vendor connections. State-changing calls need `X-CSRF: 1` and the page's Origin, and may carry `Idempotency-Key`, `Powerdeck-Undo-Of` and `Powerdeck-Device-Version` (the device's version the change was made against). Every change goes through its devices' budget of upstream calls: one that cannot go now is queued and answered 202 `{ queued: { changeId, goesAt } }`. Errors are `application/problem+json` with a stable `code`.",
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'powerdeck_session' },
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
      schema: {
        tags: ['meta'],
        summary: "This document: the product's OpenAPI 3.1 description",
        security: [],
        response: {
          200: z
            .looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) })
            .describe('The OpenAPI document'),
        },
      },
    },
    async () => app.swagger(),
  );
}

/** The product API's routes (decision 006, section 3), as one route group. */
export async function productApiRoutes(app: FastifyInstance, deps: ProductApiDeps): Promise<void> {
  siteRoutes(app, deps);
  commandRoutes(app, deps);
  batchRoutes(app, deps);
  ledgerRoutes(app, deps);
  changeRoutes(app, deps);
}
