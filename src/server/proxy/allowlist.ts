import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readIdempotencyKey } from '../http/idempotency-key.ts';
import { readUndoOf } from '../http/undo-of.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { isSuccess } from '../ledger/ledger-answers.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { LedgerIntent } from '../ledger/ledger-intent.ts';
import type { Sessions } from '../session/sessions.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import { passThrough, sendLedgerAnswer } from './pass-through.ts';
import type { StatusAnswers } from './status-answers.ts';

/** What the mirrored routes need; without `ledger` (no database) state-changing calls pass through. */
export interface ProxyDeps {
  sessions: Sessions;
  upstream: UpstreamApi;
  ledger?: Ledger | undefined;
  statuses: StatusAnswers;
  sites: SiteDirectory;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * Registers one mirrored path of the allowlist (docs/architecture.md, BFF surface): a handler per
 * method it serves, and 405 with `Allow` for every other method. Nothing else under `/api` reaches
 * the upstream; unknown paths fall to the 404 handler. Each handler keeps the order session
 * (401) -> input parsed with the domain schemas (400) -> ledger -> upstream.
 */
export function mirrorPath(
  app: FastifyInstance,
  path: string,
  handlers: Partial<Record<Method, Handler>>,
): void {
  const methods = new Set<string>();
  for (const [method, handler] of Object.entries(handlers)) {
    methods.add(method);
    if (method === 'GET') methods.add('HEAD');
    app.route({ method, url: path, handler });
  }
  refuseOtherMethods(app, path, methods);
}

/** `Omit` applied to each member of a union, so the result stays a discriminated union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A state-changing call as a route hands it over: its intent without what the request adds. */
type Change = DistributiveOmit<LedgerIntent, 'idempotencyKey' | 'undoOf' | 'requestId'>;

/**
 * Answers a state-changing call: through the command ledger, which sends `change.send()` at most
 * once and returns the answer to send (replayed for a known `Idempotency-Key`), recording the
 * change a `Powerdeck-Undo-Of` header says it undoes; without a ledger, passed through (nothing
 * is recorded, and both headers are ignored). `afterSuccess` sees every 2xx answer sent, with its
 * JSON body when the ledger read it.
 *
 * @throws ProblemError 400 `invalid_idempotency_key` or `invalid_undo_of`, the ledger's refusals,
 *   and upstream errors of a passed-through call.
 */
export async function answerChange(
  deps: ProxyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  change: Change,
  afterSuccess?: (body: unknown) => void,
): Promise<FastifyReply> {
  if (!deps.ledger) {
    const response = await change.send();
    if (afterSuccess && response.statusCode >= 200 && response.statusCode < 300)
      afterSuccess(undefined);
    return passThrough(reply, response);
  }
  const answer = await deps.ledger.run({
    ...change,
    idempotencyKey: readIdempotencyKey(request.headers),
    undoOf: readUndoOf(request.headers),
    requestId: request.id,
  });
  if (afterSuccess && isSuccess(answer.answer)) afterSuccess(answer.answer.body);
  return sendLedgerAnswer(reply, answer);
}
