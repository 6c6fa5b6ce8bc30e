import { pipeline } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { ProblemSchema } from '../../domain/errors.ts';
import { ProblemError } from '../http/problem.ts';
import {
  MAX_PASS_THROUGH_BYTES,
  capStream,
  discard,
  isJsonMediaType,
  mediaType,
  type UpstreamResponse,
} from '../upstream/upstream-http.ts';
import type { LedgerAnswer } from '../ledger/ledger-answers.ts';
import { problemFrom, upstreamProblem } from '../upstream/upstream-problem.ts';
import type { SharedAnswer } from './coalescer.ts';

/**
 * Answers the browser with an upstream answer (docs/architecture.md, Budgets): a 2xx JSON body is
 * streamed through with the upstream's status, size-capped and content-type checked, never parsed;
 * a 204 or empty 2xx is answered empty; anything else becomes a problem.
 *
 * @throws ProblemError for upstream errors, redirects, wrong content types and oversize bodies.
 */
export async function passThrough(
  reply: FastifyReply,
  response: UpstreamResponse,
): Promise<FastifyReply> {
  const status = response.statusCode;
  if (status < 200 || status >= 300) throw await upstreamProblem(response);

  const length = Number(response.headers['content-length'] ?? Number.NaN);
  if (status === 204 || length === 0) {
    await discard(response.body);
    return reply.code(status).send();
  }
  if (!isJsonMediaType(mediaType(response.headers))) {
    await discard(response.body);
    throw new ProblemError(
      502,
      'upstream_content_type',
      'The upstream answered with something other than JSON. Try again in a moment; if it persists, the upstream is having trouble.',
    );
  }
  if (length > MAX_PASS_THROUGH_BYTES) {
    await discard(response.body);
    throw new ProblemError(
      502,
      'upstream_body_too_large',
      "The upstream answered with a body larger than is accepted from it. Ask for a shorter time range; if it persists, report it to the upstream's support.",
    );
  }
  reply.code(status).type('application/json');
  if (Number.isFinite(length)) reply.header('content-length', length);
  const capped = capStream();
  pipeline(response.body, capped, () => undefined);
  return reply.send(capped);
}

/** Answers the browser with a shared (coalesced) upstream answer, checked like {@link passThrough}. */
export function sendShared(reply: FastifyReply, answer: SharedAnswer): FastifyReply {
  if (answer.status < 200 || answer.status >= 300)
    throw problemFrom(answer.status, answer.headers, answer.body);
  if (answer.status === 204 || answer.body.length === 0) return reply.code(answer.status).send();
  if (!isJsonMediaType(mediaType(answer.headers)))
    throw new ProblemError(
      502,
      'upstream_content_type',
      'The upstream answered with something other than JSON. Try again in a moment; if it persists, the upstream is having trouble.',
    );
  return reply.code(answer.status).type('application/json').send(answer.body);
}

/**
 * Answers the browser with what the ledger returned: the stored status, headers and JSON body; a
 * replayed answer carries `Idempotent-Replayed: true`. A fresh 5xx problem is logged, as the error
 * handler logs thrown ones.
 */
export function sendLedgerAnswer(
  reply: FastifyReply,
  { answer, replayed }: LedgerAnswer,
): FastifyReply {
  if (replayed) reply.header('idempotent-replayed', 'true');
  else if (answer.status >= 500) {
    const problem = ProblemSchema.safeParse(answer.body);
    if (problem.success) reply.log.warn({ code: problem.data.code }, problem.data.detail);
  }
  reply.code(answer.status);
  if (answer.headers) reply.headers(answer.headers);
  if (answer.body === undefined) return reply.send();
  return reply.type(answer.contentType).send(JSON.stringify(answer.body));
}
