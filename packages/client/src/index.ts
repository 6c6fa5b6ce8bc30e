import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './product-api.ts';

export type { components, operations, paths } from './product-api.ts';

/**
 * The answer header that says when the device of a request next has an upstream call free
 * (docs/automation.md, "The budget").
 */
export const NEXT_CALL_HEADER = 'Powerdeck-Next-Call-At';

export interface PowerdeckClientOptions {
  /** Where powerdeck answers, without `/api`: `https://powerdeck.example.com`. */
  baseUrl: string;
  /** An API token an administrator made (`pdk_...`), sent as `Authorization: Bearer`. */
  token: string;
  /** Another `fetch` (a proxy's, a test's); the platform's by default. */
  fetch?: ClientOptions['fetch'];
}

export type PowerdeckClient = Client<paths>;

/**
 * A client of powerdeck's product API whose paths, parameters, bodies and answers are typed from
 * its OpenAPI document (`GET /api/openapi.json`), with `openapi-fetch`: each call resolves to
 * `{ data }` for a success or `{ error }` (a problem: `code`, `title`, `detail`) and `response`.
 */
export function createPowerdeckClient(options: PowerdeckClientOptions): PowerdeckClient {
  return createFetchClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** When the device of `response` next has an upstream call free; undefined when not said. */
export function nextCallAt(response: Response): Date | undefined {
  const value = response.headers.get(NEXT_CALL_HEADER);
  return value ? new Date(value) : undefined;
}
