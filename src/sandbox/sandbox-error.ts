import type { ZodError } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './vendor/schemas.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * An error the sandbox answers as the vendor does, `{ errorCode, message, timestamp }`, with the
 * status of its code (docs/upstream.md, Errors). Messages say what is wrong and what to change;
 * a "not found" never says whether the thing exists elsewhere (404 for "not found or not yours").
 */
export class SandboxError extends Error {
  override readonly name: string = 'SandboxError';
  readonly status: number;
  readonly headers: Record<string, string>;

  /** `options.status` overrides the code's status (injected 5xx faults of any status). */
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers ?? {};
  }

  /** The JSON body of the error, stamped `nowMs` (epoch ms, sandbox clock). */
  body(nowMs: number): Record<string, unknown> {
    return { errorCode: this.code, message: this.message, timestamp: iso(nowMs) };
  }
}

/**
 * The rate limit's 429, whose body has its own shape (docs/upstream.md, Rate limit):
 * `{ code: "RATE_LIMIT_EXCEEDED", message, details: { deviceId?, limit, windowSeconds }, timestamp }`.
 */
export class RateLimitError extends SandboxError {
  override readonly name = 'RateLimitError';

  constructor(
    message: string,
    readonly details: { deviceId?: string; limit: number; windowSeconds: number },
    headers: Record<string, string>,
  ) {
    super('RATE_LIMIT_EXCEEDED', message, { headers });
  }

  override body(nowMs: number): Record<string, unknown> {
    return { code: this.code, message: this.message, details: this.details, timestamp: iso(nowMs) };
  }
}

/** A token endpoint error in the RFC 6749 section 5.2 shape (docs/upstream.md, Tokens). */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';

  constructor(
    readonly status: 400 | 401,
    readonly error: 'invalid_request' | 'unsupported_grant_type' | 'invalid_client',
    readonly description: string,
  ) {
    super(description);
  }
}

/**
 * 400 `INVALID_REQUEST` from a zod error, naming each field by its path
 * (`powerControl.siteImportLimitW`) and where it was (`body`, `query`, `path`), so the caller knows
 * what to change.
 */
export function invalidRequest(error: ZodError, where: 'body' | 'query' | 'path'): SandboxError {
  const text = error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.map(String).join('.') : where;
      return `${field}: ${issue.message}`;
    })
    .join('; ');
  return new SandboxError('INVALID_REQUEST', `Invalid ${where}: ${text}`);
}

/**
 * The one 404 for a site, device or command that is unknown or belongs to a site not bound to
 * the caller: the same words either way, so existence is not leaked (docs/upstream.md, Errors).
 */
export function notFoundOrNotYours(what: string): SandboxError {
  return new SandboxError(
    'NOT_FOUND',
    `${what} is not found, or its site is not bound to this client; GET /sites lists the bound sites`,
  );
}
