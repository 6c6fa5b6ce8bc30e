import { z } from 'zod';
import { PROBLEM_CONTENT_TYPE, ProblemError } from '../http/problem.ts';

/**
 * Kept with its entry so a retry with the same `Idempotency-Key` gets the same answer (IETF
 * httpapi-idempotency-key draft). Entries written before headers were kept have none.
 */
export const StoredAnswerSchema = z.object({
  status: z.number().int(),
  contentType: z.string(),
  body: z.unknown(),
  headers: z.record(z.string(), z.string()).optional(),
});
export type StoredAnswer = z.infer<typeof StoredAnswerSchema>;

export interface LedgerAnswer {
  answer: StoredAnswer;
  /** Same `Idempotency-Key`, or reconciled. */
  replayed: boolean;
}

export function isSuccess(answer: StoredAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** For a call whose upstream outcome is unknown: the failure's words, then what happens next. */
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

/** 409 for a retry whose first attempt is still under way. */
export function inProgress(remainingMs: number): ProblemError {
  return new ProblemError(
    409,
    'idempotency_in_progress',
    'This change is still being sent. Wait a moment: its outcome shows once it is known.',
    { headers: { 'retry-after': String(Math.max(1, Math.ceil(remainingMs / 1000))) } },
  );
}

export function problemAnswer(problem: ProblemError): StoredAnswer {
  return {
    status: problem.problem.status,
    contentType: PROBLEM_CONTENT_TYPE,
    body: problem.problem,
    ...(Object.keys(problem.headers).length > 0 ? { headers: problem.headers } : {}),
  };
}

export function jsonAnswer(status: number, body: unknown): StoredAnswer {
  return { status, contentType: 'application/json', body };
}
