import type { FastifyReply } from 'fastify';
import { PROBLEM_CONTENT_TYPE, ProblemError } from '../http/problem.ts';
import type { StoredAnswer } from './ledger-store.ts';

/** What the ledger answers a state-changing call with: a fresh answer or a replayed one. */
export interface LedgerAnswer {
  answer: StoredAnswer;
  /** True when the answer was stored earlier (same `Idempotency-Key`, or reconciled). */
  replayed: boolean;
}

/** The problem for a call whose upstream outcome is unknown (timeout, reset, 5xx; issue 4). */
export function unknownOutcome(problem: ProblemError): ProblemError {
  return new ProblemError(
    problem.problem.status,
    'outcome_unknown',
    `${problem.message} Whether the upstream carried it out is not known yet: the BFF checks the command history before anything else is sent for this window. Retry with the same Idempotency-Key in a few seconds to get the settled answer.`,
    {
      ...(problem.problem.upstream === undefined ? {} : { upstream: problem.problem.upstream }),
      headers: problem.headers,
    },
  );
}

/** 409 for a retry whose first attempt is still under way; `Retry-After` in whole seconds. */
export function inProgress(remainingMs: number): ProblemError {
  return new ProblemError(
    409,
    'idempotency_in_progress',
    'A request with this Idempotency-Key is still under way. Retry after a moment.',
    { headers: { 'retry-after': String(Math.max(1, Math.ceil(remainingMs / 1000))) } },
  );
}

/** A problem as the answer stored for later replays. */
export function problemAnswer(problem: ProblemError): StoredAnswer {
  return {
    status: problem.problem.status,
    contentType: PROBLEM_CONTENT_TYPE,
    body: problem.problem,
  };
}

/** Sends a ledger answer; a replayed one carries `Idempotent-Replayed: true`. */
export function sendAnswer(reply: FastifyReply, { answer, replayed }: LedgerAnswer): FastifyReply {
  if (replayed) reply.header('idempotent-replayed', 'true');
  reply.code(answer.status);
  if (answer.body === undefined) return reply.send();
  return reply.type(answer.contentType).send(JSON.stringify(answer.body));
}
