import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { parseInput } from '../http/parse.ts';
import type { Ledger, LedgerSpec } from '../ledger/ledger.ts';
import type { Session } from '../session/session-store.ts';
import type { Sessions } from '../session/sessions.ts';
import type { UpstreamCall, UpstreamClient } from '../upstream/upstream-client.ts';
import { passThrough, sendShared } from './pass-through.ts';
import type { StatusAnswers } from './status-answers.ts';

type Method = UpstreamCall['method'];

/** What a mirrored route hands its upstream call: parsed path params, query and body. */
export interface MirrorInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  session: Session;
}

/**
 * One upstream operation mirrored under `/api` with the same method, path and body (DESIGN.md 4).
 * `path` is the Fastify path under `/api`; the schemas come from `src/domain`; `upstream` builds
 * the upstream path from parsed values only. `handle` replaces plain pass-through where the BFF
 * uses the answer (ledger, coalescing).
 */
export interface MirroredRoute<P = unknown, Q = unknown, B = unknown> {
  method: Method;
  path: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  upstream: (input: MirrorInput<P, Q, B>) => { path: string; query?: URLSearchParams };
  /** Set on state-changing routes: recorded in the command ledger (issue 4). */
  ledger?: LedgerSpec;
  /**
   * A command status GET (DESIGN.md 5, status polling): answered through {@link StatusAnswers}
   * (final answers from memory, others coalesced) instead of passed through.
   */
  coalesce?: boolean;
  /**
   * What a 2xx answer changes in the remembered status answers (cancel, batch cancel, unbind).
   * `body` is the answer's parsed JSON when the BFF read it (through the ledger), else undefined.
   */
  afterSuccess?: (statuses: StatusAnswers, input: MirrorInput<P, Q, B>, body: unknown) => void;
}

/**
 * Declares a mirrored route with its types inferred from the schemas, and erases them for the
 * route table: `forward` parses params, query and body with those very schemas before calling
 * `upstream`, so the erased types hold at run time.
 */
export function mirrored<P = undefined, Q = undefined, B = undefined>(
  route: MirroredRoute<P, Q, B>,
): MirroredRoute {
  return route as unknown as MirroredRoute;
}

/**
 * Registers the allowlist: each mirrored route, and for each of their paths a 405 answer to
 * every other method. Nothing else under `/api` reaches the upstream; unknown paths fall to the
 * 404 handler. Order per request: guards (path, CSRF) -> session (401) -> input (400) -> upstream.
 */
export function registerMirror(
  app: FastifyInstance,
  routes: readonly MirroredRoute[],
  deps: MirrorDeps,
): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = methodsByPath.get(route.path) ?? new Set<string>();
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
    methodsByPath.set(route.path, methods);
    app.route({
      method: route.method,
      url: route.path,
      handler: (request, reply) => forward(route, request, reply, deps),
    });
  }
  for (const [path, methods] of methodsByPath) refuseOtherMethods(app, path, methods);
}

/** What the mirror needs; without `ledger` (no database) state-changing calls pass through. */
export interface MirrorDeps {
  sessions: Sessions;
  upstream: UpstreamClient;
  ledger?: Ledger | undefined;
  statuses: StatusAnswers;
}

async function forward(
  route: MirroredRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: MirrorDeps,
): Promise<FastifyReply> {
  const session = await deps.sessions.require(request);
  const input: MirrorInput<unknown, unknown, unknown> = {
    params: route.params ? parseInput(route.params, request.params, 'path') : undefined,
    query: route.query ? parseInput(route.query, request.query, 'query') : undefined,
    body: route.body ? parseInput(route.body, request.body, 'body') : undefined,
    session,
  };
  const target = route.upstream(input);
  const call: UpstreamCall = {
    method: route.method,
    path: target.path,
    ...(target.query ? { query: target.query } : {}),
    ...(route.body ? { body: input.body } : {}),
    requestId: request.id,
  };
  const afterSuccess = route.afterSuccess;
  if (route.ledger && deps.ledger)
    return deps.ledger.run(
      route.ledger,
      request,
      reply,
      session,
      input,
      call,
      afterSuccess && ((answer) => afterSuccess(deps.statuses, input, answer.body)),
    );
  if (route.coalesce) {
    // One upstream request serves several browsers: it carries none of their request IDs.
    const shared: UpstreamCall = { method: call.method, path: call.path };
    return sendShared(
      reply,
      await deps.statuses.fetch(session, call.path, () => deps.upstream.send(session, shared)),
    );
  }
  const response = await deps.upstream.send(session, call);
  if (afterSuccess && response.statusCode >= 200 && response.statusCode < 300)
    afterSuccess(deps.statuses, input, undefined);
  return passThrough(reply, response);
}
