import {
  ApiErrorBodySchema,
  WindowOverlapDetailsSchema,
  type UpstreamErrorCode,
} from '../../domain/errors.ts';
import { ProblemError, titleFor, type ProblemHeaders } from '../http/problem.ts';
import { isJsonMediaType, mediaType, readCapped, type UpstreamResponse } from './upstream-http.ts';

/**
 * Turns an upstream error answer into the problem the browser gets (docs/architecture.md, BFF
 * surface): the upstream's status, its `code`, its `message` as `detail` (the SPA shows it), the
 * whole error body as `upstream`, and `Retry-After` when the upstream sent one. A 401 that survived
 * one token renewal becomes 502: the browser's session is fine, the upstream is not.
 */
export async function upstreamProblem(response: UpstreamResponse): Promise<ProblemError> {
  return problemFrom(response.statusCode, response.headers, await readCapped(response.body));
}

/**
 * {@link upstreamProblem} of an answer already read. A `window_overlap` whose `details` do not
 * have their contract shape ({@link WindowOverlapDetailsSchema}) is passed on without them, so
 * whoever reads that code's details can trust them.
 */
export function problemFrom(
  statusCode: number,
  responseHeaders: UpstreamResponse['headers'],
  text: string,
): ProblemError {
  const type = mediaType(responseHeaders);
  const parsed = isJsonMediaType(type) ? ApiErrorBodySchema.safeParse(safeJson(text)) : undefined;
  const headers: ProblemHeaders = {};
  const retryAfter = responseHeaders['retry-after'];
  if (typeof retryAfter === 'string' && /^[\w ,:-]{1,64}$/.test(retryAfter))
    headers['retry-after'] = retryAfter;

  let status = statusCode;
  if (status < 400 || status > 599) status = 502;
  if (status === 401) status = 502;

  if (parsed?.success) {
    const { details, ...error } = parsed.data;
    const keepsDetails =
      details !== undefined &&
      (error.code !== ('window_overlap' satisfies UpstreamErrorCode) ||
        WindowOverlapDetailsSchema.safeParse(details).success);
    return ProblemError.fromUpstream(status, keepsDetails ? { ...error, details } : error, {
      headers,
      title: titleFor(status),
    });
  }
  return new ProblemError(
    status >= 500 ? status : 502,
    'upstream_error',
    statusCode >= 300 && statusCode < 400
      ? "The upstream answered with a redirect, which is not followed. Report it to the upstream's support."
      : `The upstream failed with HTTP ${statusCode} and no readable error. Try again in a moment.`,
    { headers },
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
