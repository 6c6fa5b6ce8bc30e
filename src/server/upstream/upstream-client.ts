import type { Region } from '../../domain/token.ts';
import { notSignedIn, type ProblemError } from '../http/problem.ts';
import { InvalidCredentialsError } from './token-endpoint.ts';
import type { TokenCache } from './token-cache.ts';
import { discard, type UpstreamHttp, type UpstreamResponse } from './upstream-http.ts';
import type { UpstreamResilience } from './resilience.ts';
import type { UpstreamCaller, UpstreamRegion } from './upstream-caller.ts';

/**
 * A call on the upstream API, relative to the region's base URL (docs/upstream.md, Sources and
 * base paths).
 */
export interface UpstreamCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path built from validated parts only, e.g. `/devices/BAT-1/commands/cmd_1`. */
  path: string;
  query?: URLSearchParams;
  /** JSON body, already parsed with the domain schema. */
  body?: unknown;
  requestId?: string;
  /**
   * `false` sends a GET or PUT once, without retries: for device control calls (a cancel, a batch
   * cancel: every try spends a call of the device's budget, and a 429 is never retried blind,
   * docs/decisions/007-device-call-budget.md, section 1), and for reads whose failure costs only
   * a detail (the site directory's lookups), so they add no retries to a failing region.
   */
  retry?: boolean;
}

/**
 * Calls the upstream API for a session: picks the session's region, attaches its bearer token
 * (docs/upstream.md, Sources and base paths), and after a 401 gets a new token and tries exactly
 * once more (a token can be revoked or expire early upstream; a second 401 is the upstream's
 * problem, not a loop). The browser's own headers (cookie, authorization, forwarding) are never
 * copied: each upstream request is built from scratch.
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
    /**
     * Called when the stored secret no longer gets a token: the session must end. It may answer
     * the problem to throw instead of 401 `not_signed_in` (a vendor connection that an
     * administrator must replace, where signing in again would not help).
     */
    onCredentialsRevoked: (session: UpstreamCaller) => Promise<ProblemError | undefined>;
  }) {
    this.#upstreams = options.upstreams;
    this.#http = options.http;
    this.#tokens = options.tokens;
    this.#onCredentialsRevoked = options.onCredentialsRevoked;
    this.#resilience = options.resilience;
  }

  /**
   * GET and PUT (cancel) are retried on transport failures, 429 and 502-504 unless `call.retry`
   * is false; POST and DELETE are sent once. Every call passes the region's circuit breaker.
   *
   * @returns the upstream answer, body unread (the caller streams or parses it).
   * @throws ProblemError for transport failures, token endpoint failures, an open circuit, and
   *   401 `not_signed_in` when the upstream no longer accepts the session's credentials.
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
    // The cached token without an await: most calls have one (two promises fewer per call).
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
