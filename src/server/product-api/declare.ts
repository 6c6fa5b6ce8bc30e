import type { FastifyInstance, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { ProblemSchema } from '../../domain/errors.ts';
import type { Permission } from '../../domain/roles.ts';
import { parseInput } from '../http/parse.ts';
import { PROBLEM_CONTENT_TYPE } from '../http/problem.ts';
import type { Session } from '../session/session-store.ts';
import type { SiteZones } from '../db/site-zones.ts';
import type { DeviceCommandsRecorder } from '../ledger/device-commands-recorder.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Sessions } from '../session/sessions.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { StatusReads } from './status-reads.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in session, checked before the route's input (product routes). */
    productSession: Session | null;
  }
}

const PARTS: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'headers',
};

/**
 * Validates a product route's params, query and body with its zod schemas, as every handler of
 * the BFF parses its input (`parseInput`): a failure is 400 `invalid_request` naming each field,
 * never a value.
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

/** A problem answer as the product's OpenAPI document declares it. */
export const problemResponse = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
});

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

/**
 * The product routes' Fastify, typed by their zod schemas. The session is required (with the
 * role `permission` asks) in `preValidation`, so a request without one is 401 before its input
 * is looked at, as on every other route (src/server/README.md, request order).
 */
export function productRoutes(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}

/** The `preValidation` hook that requires a session, for `permission`. */
export function requireSession(
  sessions: Sessions,
  permission?: Permission,
  readModel?: Pick<ReadModel, 'rememberCaller'>,
) {
  return async (request: FastifyRequest): Promise<void> => {
    request.productSession = await sessions.require(request, permission);
    // The account's devices are read under the sign-in its people use (docs/security.md); every
    // product route keeps it fresh, so a device bound or changed is read even if no page polls.
    await readModel?.rememberCaller(request.productSession);
  };
}

/** The session `requireSession` put on the request. */
export function sessionOf(request: FastifyRequest): Session {
  if (!request.productSession) throw new Error('a product route ran without requireSession');
  return request.productSession;
}

/** What the product routes need; without `ledger` (no database) changes are sent unrecorded. */
export interface ProductApiDeps {
  sessions: Sessions;
  upstream: UpstreamApi;
  ledger?: Ledger | undefined;
  statuses: StatusReads;
  sites: SiteDirectory;
  zones: SiteZones;
  now: () => number;
  /** The read model: versions and what changed since one (the stale view refusal reads it). */
  deviceCommands: DeviceCommandsRecorder;
  /**
   * The database's read model, which answers every read of device commands; without a database
   * they go to the vendor as before (`statuses` shares them).
   */
  readModel?: ReadModel | undefined;
}
