import type { FastifyReply } from 'fastify';
import type { Problem } from '#domain/errors.ts';
import type { BffProblemCode } from '#domain/problems.ts';

/** RFC 9457; docs/architecture.md, BFF surface. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  401: 'Not signed in',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Request too large',
  415: 'Unsupported media type',
  422: 'Outside the device capability',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Upstream failure',
  503: 'Upstream unavailable',
  504: 'Upstream timeout',
};

export function titleFor(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Upstream failure' : 'Request refused');
}

export type ProblemHeaders = Record<string, string>;

export interface ProblemOptions {
  /** For support. */
  upstream?: unknown;
  /** Domain `errors.ts` names their shapes per code. */
  details?: unknown;
  headers?: ProblemHeaders;
  title?: string;
}

/**
 * Thrown from any handler or hook; `code` is one of `src/domain/problems.ts`, `detail` says what
 * to do next, without spec sections or internals.
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly problem: Problem;
  readonly headers: ProblemHeaders;

  constructor(status: number, code: BffProblemCode, detail: string, options: ProblemOptions = {}) {
    super(detail);
    this.problem = {
      title: options.title ?? titleFor(status),
      status,
      detail,
      code,
      ...(options.details === undefined ? {} : { details: options.details }),
      ...(options.upstream === undefined ? {} : { upstream: options.upstream }),
    };
    this.headers = options.headers ?? {};
  }
}

export function isProblem(error: unknown, ...codes: BffProblemCode[]): error is ProblemError {
  return error instanceof ProblemError && (codes as string[]).includes(error.problem.code);
}

export function sendProblem(reply: FastifyReply, error: ProblemError): FastifyReply {
  return reply
    .code(error.problem.status)
    .headers(error.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(error.problem));
}

export const notSignedIn = (detail = 'Sign in to continue.') =>
  new ProblemError(401, 'not_signed_in', detail);
