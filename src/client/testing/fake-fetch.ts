import { vi } from 'vitest';

/** One request the code under test made, as the fake BFF saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  search: URLSearchParams;
  headers: Headers;
  body: unknown;
}

type Handler = (request: RecordedRequest) => Response | Promise<Response>;

/**
 * Replaces `fetch` with `handler` (a fake BFF) for one test and records every request.
 * Undone by the `afterEach` of render.tsx (`vi.unstubAllGlobals`).
 */
export function stubFetch(handler: Handler): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input), 'http://powerdeck.test');
      const text = typeof init?.body === 'string' ? init.body : undefined;
      const request: RecordedRequest = {
        method: init?.method ?? 'GET',
        path: url.pathname,
        search: url.searchParams,
        headers: new Headers(init?.headers),
        body: text === undefined ? undefined : JSON.parse(text),
      };
      requests.push(request);
      return handler(request);
    }),
  );
  return requests;
}

/** A JSON answer. */
export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** A problem+json answer as the BFF sends it (docs/architecture.md, BFF surface). */
export function problem(status: number, code: string, detail: string, title = 'Refused'): Response {
  return new Response(JSON.stringify({ title, status, code, detail }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  });
}

/** An answer without a body. */
export const noContent = (): Response => new Response(null, { status: 204 });
