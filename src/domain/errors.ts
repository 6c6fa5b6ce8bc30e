import { z } from 'zod';
import { CommandIdSchema } from './ids.ts';
import { UtcTimestampSchema } from './time.ts';

/**
 * Error codes of the upstream's JSON errors (our choice, docs/architecture.md, Upstream contract:
 * Errors), each with its HTTP status.
 */
export const UPSTREAM_ERROR_STATUS = {
  invalid_request: 400,
  invalid_token: 401,
  site_not_bound: 403,
  not_found: 404,
  window_overlap: 409,
  not_cancellable: 409,
  already_bound: 409,
  capability_out_of_range: 422,
  rate_limited: 429,
  upstream_error: 500,
  unavailable: 503,
} as const;

export type UpstreamErrorCode = keyof typeof UPSTREAM_ERROR_STATUS;

/**
 * Upstream error body `{ code, message, details? }` (docs/architecture.md, Upstream contract).
 * `code` is parsed as any string so a real vendor's other codes still read; the sandbox only sends
 * {@link UpstreamErrorCode}s.
 */
export const ApiErrorBodySchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>;

/**
 * `details` of a 409 `window_overlap` (docs/architecture.md, Upstream contract: Lifecycle): the
 * received or executing command of the same device whose effective window the new one overlaps
 * (spec 3.1 rule 2), so the operator can find it and cancel it first.
 */
export const WindowOverlapDetailsSchema = z.object({
  conflictingCommandId: CommandIdSchema,
  startTime: UtcTimestampSchema,
  endTime: UtcTimestampSchema,
});
export type WindowOverlapDetails = z.infer<typeof WindowOverlapDetailsSchema>;

/** RFC 6749 section 5.2 error codes of the token endpoint. */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const;

/** RFC 6749 section 5.2 error body. */
export const OAuthErrorBodySchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
});
export type OAuthErrorBody = z.infer<typeof OAuthErrorBodySchema>;

/**
 * RFC 9457 problem details as the BFF answers them (docs/architecture.md, BFF surface). `code` is a
 * stable machine code; `detail` says what the operator can do next; `upstream` carries the
 * upstream's error when there was one.
 */
export const ProblemSchema = z.object({
  type: z.string().optional(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  code: z.string(),
  upstream: z.unknown().optional(),
});
export type Problem = z.infer<typeof ProblemSchema>;
