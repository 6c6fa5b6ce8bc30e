import type { ZodError } from 'zod';
import { UPSTREAM_ERROR_STATUS, type UpstreamErrorCode } from '../domain/errors.ts';

/**
 * An error the sandbox answers as `{ code, message, details? }` with the status the domain gives
 * the code (docs/architecture.md, Upstream contract; src/domain/errors.ts). Messages say what is
 * wrong and what to change.
 */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  readonly status: number;
  readonly headers: Record<string, string>;

  /** `options.status` overrides the code's status (injected 5xx faults of any status). */
  constructor(
    readonly code: UpstreamErrorCode,
    message: string,
    readonly details?: unknown,
    options: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = options.status ?? UPSTREAM_ERROR_STATUS[code];
    this.headers = options.headers ?? {};
  }

  /** The JSON body of the error. */
  body(): { code: string; message: string; details?: unknown } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * A token endpoint error in the RFC 6749 section 5.2 shape (docs/architecture.md, Upstream
 * contract).
 */
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
 * 400 `invalid_request` from a zod error, naming each field by its path (`powerControl.siteImportLimitW`)
 * and where it was (`body`, `query`, `path`), so the caller knows what to change.
 */
export function invalidRequest(error: ZodError, where: 'body' | 'query' | 'path'): SandboxError {
  const issues = error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.map(String).join('.') : where,
    message: issue.message,
  }));
  const text = issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ');
  return new SandboxError('invalid_request', `Invalid ${where}: ${text}`, { where, issues });
}
