import type { z } from 'zod';
import { ProblemError } from '../http/problem.ts';
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
  const text = await readCapped(response.body, maxBytes);
  let json: unknown;
  if (text.length > 0) {
    if (!isJsonMediaType(mediaType(response.headers))) throw unreadable(what);
    try {
      json = JSON.parse(text);
    } catch {
      throw unreadable(what);
    }
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw unreadable(what);
  return parsed.data;
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

function unreadable(what: string): ProblemError {
  return new ProblemError(502, 'upstream_error', `The upstream's ${what} was unreadable.`);
}
