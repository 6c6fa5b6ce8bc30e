import type { z } from 'zod';
import { ProblemError, isProblem } from '../http/problem.ts';
import { refusalOf, type RefusalContext } from './upstream-problem.ts';
import {
  MAX_PARSED_BYTES,
  isJsonMediaType,
  mediaType,
  readCapped,
  type UpstreamResponse,
} from './upstream-http.ts';
import { unwrapEnvelope } from './vendor-schemas.ts';

/**
 * The body of a 2xx answer, out of the vendor's envelope (docs/upstream.md, Dialects), validated
 * with `schema`; empty reads as `undefined`.
 *
 * @throws ProblemError 502 `upstream_error` (not JSON, not `schema`), 502
 *   `upstream_body_too_large`; a transport problem when the body breaks off.
 */
export async function readJsonBody<S extends z.ZodType>(
  response: UpstreamResponse,
  schema: S,
  what: string,
  maxBytes = MAX_PARSED_BYTES,
): Promise<z.output<S>> {
  const parsed = schema.safeParse(unwrapEnvelope(await readJson(response, what, maxBytes)));
  if (!parsed.success) throw unreadable(what);
  return parsed.data;
}

async function readJson(response: UpstreamResponse, what: string, maxBytes: number) {
  const text = await readCapped(response.body, maxBytes);
  if (text.length === 0) return undefined;
  if (!isJsonMediaType(mediaType(response.headers)))
    throw new ProblemError(
      502,
      'upstream_content_type',
      "The vendor's service answered with something other than JSON. Try again in a moment; if it persists, report it to the vendor's support.",
    );
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw unreadable(what);
  }
}

/** @throws ProblemError as {@link readJsonBody}, or the vendor's refusal as a product problem. */
export async function readOkAnswer<S extends z.ZodType>(
  response: UpstreamResponse,
  schema: S,
  what: string,
  context: RefusalContext,
  maxBytes?: number,
): Promise<z.output<S>> {
  if (response.statusCode < 200 || response.statusCode >= 300)
    throw await refusalOf(response, context);
  return readJsonBody(response, schema, what, maxBytes);
}

/**
 * `refused`: the vendor certainly did nothing (a 4xx, or the call never left); `unknown`: it may
 * have acted, so only the command history can tell.
 */
export type CallResult<T> =
  | { kind: 'accepted'; status: number; value: T }
  | { kind: 'refused' | 'unknown'; status?: number; problem: ProblemError };

/**
 * Performs one state-changing call and classifies its answer; an unreadable 2xx is `unknown`.
 * Never throws.
 */
export async function settleCall<T>(
  send: () => Promise<UpstreamResponse>,
  read: (answer: unknown, status: number) => { status: number; value: T } | undefined,
  context: RefusalContext,
  refine?: (status: number) => Promise<Partial<RefusalContext>>,
): Promise<CallResult<T>> {
  let response: UpstreamResponse;
  try {
    response = await send();
  } catch (error) {
    const problem =
      error instanceof ProblemError
        ? error
        : new ProblemError(
            502,
            'upstream_unreachable',
            "The vendor's service could not be reached. Try again in a moment.",
          );
    const maybeActed = isProblem(
      problem,
      'upstream_timeout',
      'upstream_unreachable',
      'upstream_body_too_large',
    );
    return { kind: maybeActed ? 'unknown' : 'refused', problem };
  }
  const status = response.statusCode;
  if (status < 200 || status >= 300) {
    const extra =
      refine && (status === 422 || status === 409) ? await refine(status).catch(() => ({})) : {};
    const problem = await refusalOf(response, { ...context, ...extra });
    return { kind: status >= 500 ? 'unknown' : 'refused', status, problem };
  }
  try {
    const answer = unwrapEnvelope(await readJson(response, 'answer', MAX_PARSED_BYTES));
    const read_ = read(answer, status);
    if (!read_) throw unreadable('answer');
    return { kind: 'accepted', status: read_.status, value: read_.value };
  } catch (error) {
    const problem = isProblem(error, 'upstream_body_too_large')
      ? error
      : new ProblemError(
          502,
          'upstream_error',
          "The vendor's service accepted the request but its answer was unreadable.",
        );
    return { kind: 'unknown', status, problem };
  }
}

function unreadable(what: string): ProblemError {
  return new ProblemError(
    502,
    'upstream_error',
    `The vendor's ${what} was unreadable. Try again in a moment; if it persists, report it to the vendor's support.`,
  );
}
