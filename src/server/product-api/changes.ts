import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemSchema } from '#domain/errors.ts';
import { readIdempotencyKey } from '../http/idempotency-key.ts';
import { readUndoOf } from '../http/undo-of.ts';
import type { LedgerAnswer } from '../ledger/ledger-answers.ts';
import { isSuccess } from '../ledger/ledger-answers.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { LedgerIntent } from '../ledger/ledger-intent.ts';
import type { DistributiveOmit } from '../changes/change-kinds.ts';

/** A state-changing call as a route hands it over: its intent without what the request adds. */
export type Change = DistributiveOmit<LedgerIntent, 'idempotencyKey' | 'undoOf' | 'requestId'>;

/**
 * Answers a state-changing call: through the command ledger, which sends `change.send()` at most
 * once and returns the answer to send (replayed for a known `Idempotency-Key`), recording the
 * change a `Powerdeck-Undo-Of` header says it undoes. `afterSuccess` sees every 2xx answer sent,
 * with its body (the product's answer).
 *
 * @throws ProblemError 400 `invalid_idempotency_key` or `invalid_undo_of`, and the ledger's
 *   refusals.
 */
export async function answerChange(
  ledger: Ledger,
  request: FastifyRequest,
  reply: FastifyReply,
  change: Change,
  afterSuccess?: (body: unknown) => void | Promise<void>,
): Promise<FastifyReply> {
  const answer = await ledger.run({
    ...change,
    idempotencyKey: readIdempotencyKey(request.headers),
    undoOf: readUndoOf(request.headers),
    requestId: request.id,
  } as LedgerIntent);
  if (afterSuccess && isSuccess(answer.answer)) await afterSuccess(answer.answer.body);
  return sendLedgerAnswer(reply, answer);
}

/**
 * Answers the browser with what the ledger returned: the stored status, headers and JSON body; a
 * replayed answer carries `Idempotent-Replayed: true`. A fresh 5xx problem is logged, as the error
 * handler logs thrown ones. The body goes out as text: it was checked when it was made.
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
  if (answer.body === undefined || answer.status === 204) return reply.send();
  return reply.type(answer.contentType).send(JSON.stringify(answer.body));
}
