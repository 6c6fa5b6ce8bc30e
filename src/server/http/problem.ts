import type { FastifyReply } from 'fastify';
import type { Problem } from '../../domain/errors.ts';
import type { BffProblemCode } from '../../domain/problems.ts';

/** Media type of every error the BFF answers (RFC 9457; docs/architecture.md, BFF surface). */
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

/** Short title for an HTTP status, for problem bodies. */
export function titleFor(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Upstream failure' : 'Request refused');
}

/** Extra response headers a problem carries, e.g. `Retry-After` or `Allow`. */
export type ProblemHeaders = Record<string, string>;

/** What a problem may carry besides status, code and detail. */
export interface ProblemOptions {
  /** The vendor's error body, when the problem comes from one (for support). */
  upstream?: unknown;
  /** Structured facts of the problem (domain `errors.ts` names their shapes per code). */
  details?: unknown;
  headers?: ProblemHeaders;
  title?: string;
}

/**
 * An error the BFF answers as problem+json. Throw it from any handler or hook; the error handler
 * turns it into the response. `code` is one of the product's codes (`src/domain/problems.ts`,
 * where each is documented); the upstream adapter words every vendor refusal as one.
 * `detail` says what to do next, in words without spec sections or internals.
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

/** True when `error` is a problem with one of the BFF's own `codes`. */
export function isProblem(error: unknown, ...codes: BffProblemCode[]): error is ProblemError {
  return error instanceof ProblemError && (codes as string[]).includes(error.problem.code);
}

/** Sends a problem as `application/problem+json` with its status and headers. */
export function sendProblem(reply: FastifyReply, error: ProblemError): FastifyReply {
  return reply
    .code(error.problem.status)
    .headers(error.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(error.problem));
}

/** 401 `not_signed_in`: no session, or it expired or was destroyed. */
export const notSignedIn = (detail = 'Sign in to continue.') =>
  new ProblemError(401, 'not_signed_in', detail);
