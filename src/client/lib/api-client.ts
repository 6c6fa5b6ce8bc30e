import type { z } from 'zod';
import { safeParse } from 'zod/v4/core';
import { ApiError, CLIENT_ERROR_CODES } from './api-error.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface RequestOptions {
  method?: Method;
  body?: unknown;
  /** Query string fields; a number is written in its decimal digits, an undefined one left out. */
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal | undefined;
  /** `Idempotency-Key`: the same for every try of one intent, so the BFF sends upstream at most once (docs/architecture.md, Ledger). */
  idempotencyKey?: string | undefined;
  /** `Powerdeck-Undo-Of`: the `Idempotency-Key` of the change this request undoes. */
  undoOf?: string | undefined;
}

/** A successful answer: its HTTP status (201 vs 200 can matter) and the parsed body. */
export interface ApiResponse<T> {
  status: number;
  data: T;
}

/**
 * Calls the BFF under `/api` with the session cookie, parses the body with `schema` (`null`: no
 * body), adds `X-CSRF: 1` to non-GET calls (docs/architecture.md, BFF surface). Rejects with
 * {@link ApiError} only (`network_error`, `unexpected_response`, or the problem's); aborts rethrown.
 */
export async function apiRequestWithStatus<S extends z.core.$ZodType>(
  path: string,
  schema: S,
  options?: RequestOptions,
): Promise<ApiResponse<z.output<S>>>;
export async function apiRequestWithStatus(
  path: string,
  schema: null,
  options?: RequestOptions,
): Promise<ApiResponse<undefined>>;
export async function apiRequestWithStatus(
  path: string,
  schema: z.core.$ZodType | null,
  { method = 'GET', body, query, signal, idempotencyKey, undoOf }: RequestOptions = {},
): Promise<ApiResponse<unknown>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') headers['X-CSRF'] = '1';
  if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
  if (undoOf !== undefined) headers['Powerdeck-Undo-Of'] = undoOf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';

  let response: Response;
  try {
    response = await fetch(withQuery(`/api${path}`, query), {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signal ?? null,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError({
      status: 0,
      code: CLIENT_ERROR_CODES.networkError,
      title: 'No answer from the server',
      detail: 'The powerdeck server did not answer. Check your connection, then try again.',
    });
  }

  if (!response.ok) throw await problemToError(response);
  if (schema === null) return { status: response.status, data: undefined };

  const parsed = safeParse(schema, await response.json().catch(() => undefined));
  if (!parsed.success) {
    throw new ApiError({
      status: response.status,
      code: CLIENT_ERROR_CODES.unexpectedResponse,
      title: 'Unexpected answer',
      detail: `The server's answer to ${method} /api${path} was not in the expected shape, so it is not shown. Reload the page; if this persists, report it.`,
    });
  }
  return { status: response.status, data: parsed.data };
}

/** {@link apiRequestWithStatus} for callers that need the body only. */
export async function apiRequest<S extends z.core.$ZodType>(
  path: string,
  schema: S,
  options?: RequestOptions,
): Promise<z.output<S>>;
export async function apiRequest(
  path: string,
  schema: null,
  options?: RequestOptions,
): Promise<undefined>;
export async function apiRequest(
  path: string,
  schema: z.core.$ZodType | null,
  options?: RequestOptions,
): Promise<unknown> {
  const { data } = await (schema === null
    ? apiRequestWithStatus(path, null, options)
    : apiRequestWithStatus(path, schema, options));
  return data;
}

function withQuery(path: string, query: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** `Retry-After` in ms: seconds or an HTTP date (RFC 9110, 10.2.3); undefined when unreadable; ≥ 0. */
export function retryAfterMs(header: string | null, nowMs = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const atMs = Date.parse(header);
  return Number.isNaN(atMs) ? undefined : Math.max(0, atMs - nowMs);
}

/** Reads an error answer: problem+json when the BFF sent one, else words from the status. */
export async function problemToError(response: Response): Promise<ApiError> {
  const wait = retryAfterMs(response.headers.get('Retry-After'));
  // Loaded with the first error answer: the problem's schemas need the classic zod, which the
  // sign-in page's first paint does not wait for (src/domain/sign-in-mode.ts).
  const { ProblemSchema } = await import('#domain/errors.ts');
  const problem = ProblemSchema.safeParse(await response.json().catch(() => undefined));
  if (problem.success) {
    const { status, code, title, detail, details, upstream } = problem.data;
    return new ApiError({ status, code, title, detail, details, upstream, retryAfterMs: wait });
  }
  const statusText = response.statusText ? ` ${response.statusText}` : '';
  return new ApiError({
    status: response.status,
    code: CLIENT_ERROR_CODES.unexpectedResponse,
    title: `HTTP ${response.status}${statusText}`,
    detail: `The server answered HTTP ${response.status}${statusText} without an explanation. Try again in a moment.`,
    retryAfterMs: wait,
  });
}
