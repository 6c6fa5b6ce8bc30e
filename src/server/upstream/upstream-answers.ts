import type { z } from 'zod';
import { ProblemError, isProblem } from '../http/problem.ts';
import { upstreamProblem } from './upstream-problem.ts';
import {
  MAX_PARSED_BYTES,
  isJsonMediaType,
  mediaType,
  readCapped,
  type UpstreamResponse,
} from './upstream-http.ts';

/**
 * Reads an upstream answer the BFF uses itself (never one it streams to the browser): the body
 * up to `maxBytes`, checked to be JSON, parsed and validated with `schema`. An empty body reads
 * as `undefined`, which `schema` may accept (a 204) or not.
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
  const parsed = schema.safeParse(await readJson(response, what, maxBytes));
  if (!parsed.success) throw unreadable(what);
  return parsed.data;
}

/** The JSON of an answer's body as it came, `undefined` when empty ({@link readJsonBody}). */
async function readJson(response: UpstreamResponse, what: string, maxBytes: number) {
  const text = await readCapped(response.body, maxBytes);
  if (text.length === 0) return undefined;
  if (!isJsonMediaType(mediaType(response.headers))) throw unreadable(what);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw unreadable(what);
  }
}

/**
 * Reads a 200 answer of a read the BFF uses itself ({@link readJsonBody}); any other status
 * becomes the upstream's problem.
 *
 * @throws ProblemError as {@link readJsonBody}, or the upstream's error as a problem.
 */
export async function readOkAnswer<S extends z.ZodType>(
  response: UpstreamResponse,
  schema: S,
  what: string,
  maxBytes?: number,
): Promise<z.output<S>> {
  if (response.statusCode !== 200) throw await upstreamProblem(response);
  return readJsonBody(response, schema, what, maxBytes);
}

/**
 * What a state-changing upstream call came to, as the command ledger records it:
 * - `accepted`: a 2xx whose body fits the operation's schema: `body` is the JSON as it came
 *   (what the browser gets), `value` what the schema made of it;
 * - `refused`: the upstream certainly did nothing (a 4xx answer, or the call never left: open
 *   circuit, token endpoint down, credentials revoked);
 * - `unknown`: it may have acted (timeout, connection reset, oversize or unreadable body, 5xx),
 *   so only the command history can tell.
 * `status` is the upstream's HTTP status when an answer came.
 */
export type CallResult<T> =
  | { kind: 'accepted'; status: number; body: unknown; value: T }
  | { kind: 'refused' | 'unknown'; status?: number; problem: ProblemError };

/**
 * Performs one state-changing call and classifies its answer ({@link CallResult}); an accepted
 * body must be JSON (or empty) and fit `schema`, else the outcome is unknown. Never throws:
 * every failure is a result.
 */
export async function settleCall<S extends z.ZodType>(
  send: () => Promise<UpstreamResponse>,
  schema: S,
): Promise<CallResult<z.output<S>>> {
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
            'The upstream could not be reached. Try again in a moment.',
          );
    // After these the request may have reached the upstream and been acted on; after the others
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
    const problem = await upstreamProblem(response).catch(
      () =>
        new ProblemError(
          502,
          'upstream_error',
          `The upstream failed with HTTP ${status} and its answer broke off. Try again in a moment.`,
        ),
    );
    return { kind: status >= 500 ? 'unknown' : 'refused', status, problem };
  }
  try {
    const body = await readJson(response, 'answer', MAX_PARSED_BYTES);
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw unreadable('answer');
    return { kind: 'accepted', status, body, value: parsed.data };
  } catch (error) {
    const problem = isProblem(error, 'upstream_body_too_large')
      ? error
      : new ProblemError(
          502,
          'upstream_error',
          'The upstream accepted the request but its answer was unreadable.',
        );
    return { kind: 'unknown', status, problem };
  }
}

function unreadable(what: string): ProblemError {
  return new ProblemError(
    502,
    'upstream_error',
    `The upstream's ${what} was unreadable. Try again in a moment; if it persists, report it to the upstream's support.`,
  );
}
