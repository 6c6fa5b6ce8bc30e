import type { ZodError } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './vendor/schemas.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** Answered as the vendor does, `{ errorCode, message, timestamp }` (docs/upstream.md, Errors). */
export class SandboxError extends Error {
  override readonly name: string = 'SandboxError';
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers ?? {};
  }

  body(nowMs: number): Record<string, unknown> {
    return { errorCode: this.code, message: this.message, timestamp: iso(nowMs) };
  }
}

/** The rate limit's 429 has its own body shape (docs/upstream.md, Rate limit). */
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

/** RFC 6749 section 5.2 shape (docs/upstream.md, Tokens). */
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

export function invalidRequest(error: ZodError, where: 'body' | 'query' | 'path'): SandboxError {
  const text = error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.map(String).join('.') : where;
      return `${field}: ${issue.message}`;
    })
    .join('; ');
  return new SandboxError('INVALID_REQUEST', `Invalid ${where}: ${text}`);
}

/** The same words for unknown and not yours, so existence is not leaked. */
export function notFoundOrNotYours(what: string): SandboxError {
  return new SandboxError(
    'NOT_FOUND',
    `${what} is not found, or its site is not bound to this client; GET /sites lists the bound sites`,
  );
}
