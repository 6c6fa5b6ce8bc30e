/** Codes the client itself gives an {@link ApiError} when there is no problem body to read. */
export const CLIENT_ERROR_CODES = {
  networkError: 'network_error',
  unexpectedResponse: 'unexpected_response',
} as const;

/**
 * The one error every BFF call rejects with: `status` (0: no answer), `code` (the BFF's stable
 * problem code, docs/architecture.md, BFF surface, or {@link CLIENT_ERROR_CODES}), `detail` for operators.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly title: string;
  /** Structured facts of the problem (domain `errors.ts` names their shapes per code). */
  readonly details: unknown;
  readonly upstream: unknown;
  /** How long the server asked to wait before the same request again, ms (its `Retry-After`). */
  readonly retryAfterMs: number | undefined;

  constructor(init: {
    status: number;
    code: string;
    title: string;
    detail?: string | undefined;
    details?: unknown;
    upstream?: unknown;
    retryAfterMs?: number | undefined;
  }) {
    super(init.detail ?? init.title);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail ?? init.title;
    this.details = init.details;
    this.upstream = init.upstream;
    this.retryAfterMs = init.retryAfterMs;
  }
}

export function isApiError(error: unknown, code?: string): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}
