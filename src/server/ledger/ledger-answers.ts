import { z } from 'zod';
import { PROBLEM_CONTENT_TYPE, ProblemError } from '../http/problem.ts';

/**
 * The answer a state-changing call got, kept with its entry so a retry with the same
 * `Idempotency-Key` gets the same one (IETF httpapi-idempotency-key draft): status, content type,
 * JSON body (absent for an empty answer) and the headers to send again (`Retry-After`). Entries
 * written before headers were kept have none.
 */
export const StoredAnswerSchema = z.object({
  status: z.number().int(),
  contentType: z.string(),
  body: z.unknown(),
  headers: z.record(z.string(), z.string()).optional(),
});
export type StoredAnswer = z.infer<typeof StoredAnswerSchema>;

/** What the ledger answers a state-changing call with: a fresh answer or a replayed one. */
export interface LedgerAnswer {
  answer: StoredAnswer;
  /** True when the answer was stored earlier (same `Idempotency-Key`, or reconciled). */
  replayed: boolean;
}

/** True for a 2xx answer. */
export function isSuccess(answer: StoredAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/**
 * The problem for a call whose upstream outcome is unknown (timeout, reset, 5xx, unreadable
 * acceptance): the underlying failure's status and words, then what happens next.
 */
export function unknownOutcome(problem: ProblemError): ProblemError {
  return new ProblemError(
    problem.problem.status,
    'outcome_unknown',
    `${problem.message} Whether the vendor carried it out is not known yet; its command history is checked before anything else is sent for this window. Send the same change again in a few seconds for the settled answer: it is recognised, never sent twice.`,
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

/** A problem as the answer stored for later replays, its headers included. */
export function problemAnswer(problem: ProblemError): StoredAnswer {
  return {
    status: problem.problem.status,
    contentType: PROBLEM_CONTENT_TYPE,
    body: problem.problem,
    ...(Object.keys(problem.headers).length > 0 ? { headers: problem.headers } : {}),
  };
}

/** A JSON answer as stored; `body` undefined for an empty one. */
export function jsonAnswer(status: number, body: unknown): StoredAnswer {
  return { status, contentType: 'application/json', body };
}
