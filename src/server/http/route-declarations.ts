import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import fastJson, { type Schema as JsonSchema } from 'fast-json-stringify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ProblemSchema } from '../../domain/errors.ts';
import { parseInput } from './parse.ts';
import { PROBLEM_CONTENT_TYPE } from './problem.ts';

/**
 * How every route of the BFF is declared (docs/decisions/006, section 3): params, query, body and
 * every answer, problems included, with the domain's zod schemas, through
 * `fastify-type-provider-zod`; `@fastify/swagger` publishes them at `GET /api/openapi.json`
 * (`product-api/product-api.ts`). A route's own checks that come before its input (the session and
 * role) run in its `preValidation` hook, so the request order of src/server/README.md holds.
 */

const PARTS: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'headers',
};

/**
 * Validates a declared route's params, query and body with its zod schemas, as `parseInput`
 * parses any input: a failure is 400 `invalid_request` naming each field, never a value.
 */
export const productValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    try {
      return { value: parseInput(schema, data, PARTS[httpPart ?? 'body'] ?? 'body') };
    } catch (error) {
      return { error: error as Error };
    }
  };

/**
 * The `serializerCompiler` of a route polled at a high rate (a command's status): each of its
 * declared zod answer schemas, problems included, is turned into JSON Schema once (zod's
 * `toJSONSchema`, the answer's side, as the OpenAPI document shows it) and compiled by
 * fast-json-stringify. The answer keeps its declared shape (only declared fields, every
 * required one present, or the answer fails), without the zod parse per answer that
 * `fastify-type-provider-zod`'s serializer makes: about three times the time (bench CPU profile).
 */
export function precompiledSerializerCompiler({ schema }: { schema: unknown }) {
  if (!(schema instanceof z.ZodType)) throw new Error('a declared answer is not a zod schema');
  return fastJson(z.toJSONSchema(schema, { io: 'output', target: 'draft-7' }) as JsonSchema);
}

/** A problem answer as the OpenAPI document declares it. */
export const problemResponse = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
});

/**
 * An answer without a body that sends the browser elsewhere (`Location`), such as a 303 of the
 * company sign-in.
 */
export const redirectResponse = (description: string) => z.null().describe(description);

/** The problem answers every product route may give, besides its own. */
export const COMMON_PROBLEMS = {
  400: problemResponse('The path, query or body failed its schema (`invalid_request`).'),
  401: problemResponse('Not signed in (`not_signed_in`).'),
  403: problemResponse(
    'CSRF proof missing (`csrf`), or the role may not do this (`forbidden_role`).',
  ),
  502: problemResponse('The vendor failed or answered what could not be read (`upstream_*`).'),
  503: problemResponse("The region's circuit is open, or the token endpoint is down."),
  504: problemResponse('The vendor did not answer in time (`upstream_timeout`).'),
} as const;

/** The methods whose body Fastify reads (when the request says it has one), so may refuse. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A body limit in words: `64 KiB`, `8 MiB`. */
export function bodyLimitWords(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * The problem answers every route whose method takes a body may give before any check of its
 * own: Fastify reads the body before the route's hooks and refuses it as too large (over the
 * route's `bodyLimit`, else the app's) or of another type than JSON. `bodyLimitBytes` is the
 * route's limit.
 */
export const bodyProblems = (bodyLimitBytes: number) => ({
  413: problemResponse(`The body is over ${bodyLimitWords(bodyLimitBytes)} (\`body_too_large\`).`),
  415: problemResponse(
    'The body is not JSON (`unsupported_media_type`): send it as `application/json`.',
  ),
});

/**
 * Declares, on every route registered from now on with a schema, the answers common to all
 * routes that it can give though it does not list them itself: {@link bodyProblems} on a method
 * that takes a body. One declaration, so no route's OpenAPI entry leaves out an answer it gives;
 * a route's own description of the same status stays. Call it before `@fastify/swagger` and the
 * routes are registered.
 */
export function declareCommonAnswers(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.schema || (route.schema as { hide?: boolean }).hide === true) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => BODY_METHODS.has(method))) return;
    const bodyLimitBytes = route.bodyLimit ?? app.initialConfig.bodyLimit ?? 1024 * 1024;
    const declared = (route.schema.response ?? {}) as Record<string, unknown>;
    route.schema.response = { ...bodyProblems(bodyLimitBytes), ...declared };
  });
}

/** The routes of `app`, typed by their zod schemas. */
export function declaredRoutes(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}
