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
 * The business answer of a 2xx vendor answer: the body up to `maxBytes`, checked to be JSON,
 * parsed, taken out of the `{ code, msg, data }` envelope when the vendor sends one
 * (docs/upstream.md, Dialects) and validated with `schema`. An empty body reads as `undefined`.
 *
 * @param what words for the answer in the problem, e.g. `site list`.
 * @throws ProblemError 502 `upstream_error` when the body is not JSON or does not fit `schema`;
 *   502 `upstream_body_too_large` past `maxBytes`; a transport problem when the body breaks off.
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

/** The JSON of an answer's body as it came, `undefined` when empty ({@link readJsonBody}). */
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

/**
 * Reads a 2xx answer of a read ({@link readJsonBody}); any other status becomes the product
 * problem of the vendor's refusal (`refusalProblem`).
 *
 * @throws ProblemError as {@link readJsonBody}, or the refusal as a product problem.
 */
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
 * What a state-changing vendor call came to, as the command ledger records it:
 * - `accepted`: a 2xx whose body the adapter could read: `value` is the product's answer and
 *   `status` the product's status for it;
 * - `refused`: the vendor certainly did nothing (a 4xx answer, or the call never left: open
 *   circuit, token endpoint down, credentials revoked), `problem` the product problem;
 * - `unknown`: it may have acted (timeout, connection reset, oversize or unreadable body, 5xx),
 *   so only the command history can tell.
 * `status` of a refusal is the vendor's HTTP status when an answer came.
 */
export type CallResult<T> =
  | { kind: 'accepted'; status: number; value: T }
  | { kind: 'refused' | 'unknown'; status?: number; problem: ProblemError };

/**
 * Performs one state-changing call and classifies its answer ({@link CallResult}); an accepted
 * body must be JSON (or empty) and be readable by `read` (its business answer, out of any
 * envelope), else the outcome is unknown. Never throws: every failure is a result.
 *
 * @param read the product's answer and status from the vendor's business answer and status;
 *   undefined when unreadable.
 * @param context what a refusal is about, for its words; `refine` may add to it (the value
 *   outside a device's range of a 422, the command in the way of a 409) before the refusal is
 *   worded.
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
    // After these the request may have reached the vendor and been acted on; after the others
    // (open circuit, token endpoint, revoked credentials) it never left.
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
