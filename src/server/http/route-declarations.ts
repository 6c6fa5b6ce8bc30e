import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import fastJson, { type Schema as JsonSchema } from 'fast-json-stringify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ProblemSchema } from '#domain/errors.ts';
import { parseInput } from './parse.ts';
import { PROBLEM_CONTENT_TYPE } from './problem.ts';

/**
 * Routes are declared with the domain's zod schemas (decision 006, section 3); a route's session
 * and role checks run in `preValidation`, so the request order of src/server/README.md holds.
 */

const PARTS: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'headers',
};

/** A failure is 400 `invalid_request` naming each field, never a value. */
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
 * For a route polled at a high rate: the answer schemas compiled once by fast-json-stringify, not a
 * zod parse per answer (about three times the time, bench CPU profile).
 */
export function precompiledSerializerCompiler({ schema }: { schema: unknown }) {
  if (!(schema instanceof z.ZodType)) throw new Error('a declared answer is not a zod schema');
  return fastJson(z.toJSONSchema(schema, { io: 'output', target: 'draft-7' }) as JsonSchema);
}

export const problemResponse = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
});

/** Such as a 303 of the company sign-in. */
export const redirectResponse = (description: string) => z.null().describe(description);

export const COMMON_PROBLEMS = {
  400: problemResponse('The path, query or body failed its schema (`invalid_request`).'),
  401: problemResponse(
    'Not signed in (`not_signed_in`), or the API token is unknown, revoked or expired (`token_invalid`, `token_revoked`, `token_expired`).',
  ),
  403: problemResponse(
    "CSRF proof missing (`csrf`), the role may not do this (`forbidden_role`), the route takes no API token (`token_not_accepted`), or the device or site is off the token's sites (`token_outside_sites`).",
  ),
  502: problemResponse('The vendor failed or answered what could not be read (`upstream_*`).'),
  503: problemResponse("The region's circuit is open, or the token endpoint is down."),
  504: problemResponse('The vendor did not answer in time (`upstream_timeout`).'),
} as const;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function bodyLimitWords(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Fastify refuses a body before the route's hooks: too large, or not JSON. */
export const bodyProblems = (bodyLimitBytes: number) => ({
  413: problemResponse(`The body is over ${bodyLimitWords(bodyLimitBytes)} (\`body_too_large\`).`),
  415: problemResponse(
    'The body is not JSON (`unsupported_media_type`): send it as `application/json`.',
  ),
});

/**
 * So no route's OpenAPI entry leaves out an answer it gives. Call it before `@fastify/swagger` and
 * the routes are registered.
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

export function declaredRoutes(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}
