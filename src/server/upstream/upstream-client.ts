import type { Region } from '#domain/token.ts';
import { notSignedIn, type ProblemError } from '../http/problem.ts';
import { InvalidCredentialsError } from './token-endpoint.ts';
import type { TokenCache } from './token-cache.ts';
import { discard, type UpstreamHttp, type UpstreamResponse } from './upstream-http.ts';
import type { UpstreamResilience } from './resilience.ts';
import type { UpstreamCaller, UpstreamRegion } from './upstream-caller.ts';

export interface UpstreamCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Built from validated parts only. */
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  requestId?: string;
  /**
   * `false` sends a GET or PUT once: device control calls (each try spends the device's budget,
   * decision 007, section 1) and reads whose failure costs only a detail.
   */
  retry?: boolean;
}

/**
 * Attaches the session's bearer token and, after a 401, gets a new one and tries exactly once
 * more (no loop). The browser's own headers are never copied.
 */
export class UpstreamClient {
  readonly #upstreams: Record<Region, UpstreamRegion>;
  readonly #http: UpstreamHttp;
  readonly #tokens: TokenCache;
  readonly #onCredentialsRevoked: (session: UpstreamCaller) => Promise<ProblemError | undefined>;
  readonly #resilience: UpstreamResilience;

  constructor(options: {
    resilience: UpstreamResilience;
    upstreams: Record<Region, UpstreamRegion>;
    http: UpstreamHttp;
    tokens: TokenCache;
    /** May answer the problem to throw instead of 401 `not_signed_in` (a vendor connection to replace). */
    onCredentialsRevoked: (session: UpstreamCaller) => Promise<ProblemError | undefined>;
  }) {
    this.#upstreams = options.upstreams;
    this.#http = options.http;
    this.#tokens = options.tokens;
    this.#onCredentialsRevoked = options.onCredentialsRevoked;
    this.#resilience = options.resilience;
  }

  /**
   * GET and PUT are retried unless `call.retry` is false; POST and DELETE are sent once.
   *
   * @returns the upstream answer, body unread.
   * @throws ProblemError for transport and token failures, an open circuit, and 401 `not_signed_in`.
   */
  send(session: UpstreamCaller, call: UpstreamCall): Promise<UpstreamResponse> {
    const idempotent = call.retry !== false && (call.method === 'GET' || call.method === 'PUT');
    return this.#resilience.execute(session.region, idempotent, () => this.#once(session, call));
  }

  async #once(session: UpstreamCaller, call: UpstreamCall): Promise<UpstreamResponse> {
    const first = await this.#attempt(session, call);
    if (first.response.statusCode !== 401) return first.response;
    await discard(first.response.body);
    this.#tokens.invalidate(session.id, first.accessToken);
    return (await this.#attempt(session, call)).response;
  }

  async #attempt(
    session: UpstreamCaller,
    call: UpstreamCall,
  ): Promise<{ response: UpstreamResponse; accessToken: string }> {
    // No await when cached: two promises fewer per call.
    const accessToken = this.#tokens.cached(session) ?? (await this.#token(session));
    const headers: Record<string, string> = {
      authorization: `Bearer ${accessToken}`,
      accept: 'application/json',
    };
    if (call.requestId) headers['x-request-id'] = call.requestId;
    let body: string | undefined;
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    const query = call.query?.toString();
    const url = `${this.#upstreams[session.region].baseUrl}${call.path}${query ? `?${query}` : ''}`;
    const response = await this.#http.send({
      method: call.method,
      url,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    return { response, accessToken };
  }

  async #token(session: UpstreamCaller): Promise<string> {
    try {
      return await this.#tokens.get(session);
    } catch (error) {
      if (!(error instanceof InvalidCredentialsError)) throw error;
      const problem = await this.#onCredentialsRevoked(session);
      if (problem) throw problem;
      throw notSignedIn(
        'The upstream no longer accepts the client credentials of this session. Sign in again.',
      );
    }
  }
}
