import { OAuthErrorBodySchema } from '../../domain/errors.ts';
import { REGION_NAMES, type Region } from '../../domain/token.ts';
import { ProblemError } from '../http/problem.ts';
import type { UpstreamRegion } from './upstream-caller.ts';
import { VendorTokenSchema } from './vendor-schemas.ts';
import {
  discard,
  isJsonMediaType,
  mediaType,
  readCapped,
  type UpstreamHttp,
  type UpstreamResponse,
} from './upstream-http.ts';

/** The client credentials were refused by the token endpoint (RFC 6749 5.2 `invalid_client`...). */
export class InvalidCredentialsError extends Error {
  override readonly name = 'InvalidCredentialsError';
  readonly code = 'invalid_credentials';
}

/** RFC 6749 5.2 errors that mean "these credentials do not work", whatever the exact reason. */
const CREDENTIAL_ERRORS = new Set(['invalid_client', 'unauthorized_client', 'invalid_grant']);

/** A token as the BFF keeps it. */
export interface IssuedToken {
  accessToken: string;
  /**
   * Lifetime in seconds (`expires_in`); undefined when the server sent none (RFC 6749 5.1 only
   * recommends it): such a token is used until the upstream refuses it with 401, then renewed
   * once (docs/architecture.md, Regions and tokens).
   */
  expiresInS: number | undefined;
}

/** Path of the token endpoint under a region's auth URL (docs/upstream.md, Tokens). */
export const TOKEN_PATH = '/api/auth/oauth2/token';

/**
 * How the client authenticates at the token endpoint (RFC 6749 2.3.1): `form` sends
 * `client_id` and `client_secret` as form fields, as the vendor's guide asks (docs/upstream.md, Tokens); `basic` sends
 * them in an HTTP Basic `Authorization` header, which every OAuth 2.0 server must support.
 */
export type ClientAuthMethod = 'form' | 'basic';

const METHOD_WORDS: Record<ClientAuthMethod, string> = {
  form: 'form fields',
  basic: 'HTTP Basic',
};

/** Why a token is asked for: the words of a failure differ. */
export type TokenPurpose = 'sign-in' | 'renewal';

/** Where the token endpoint writes what went wrong (pino's logger fits). */
export interface TokenLog {
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

/** A token endpoint's answer that refused the client. */
interface Refusal {
  status: number;
  error: string | undefined;
  errorDescription: string | undefined;
  /** The answer carried `WWW-Authenticate: Basic`: the server asks for HTTP Basic. */
  asksForBasic: boolean;
}

/**
 * The regions' token endpoints, `POST {authUrl}/api/auth/oauth2/token` with the
 * client-credentials grant (docs/upstream.md, Tokens; docs/architecture.md, Regions and tokens);
 * the answer is read in the guide's snake_case and the OpenAPI document's camelCase alike. Every failure is logged naming what was wrong, never a secret or a token.
 *
 * Client authentication: form fields first, as the vendor documents. When a server refuses them
 * with 401 (or 400 `invalid_client`), the same request is sent once with HTTP Basic, which
 * RFC 6749 2.3.1 obliges every server to accept and which some accept exclusively (they give no
 * sign of it: oidc-provider answers a form-field attempt exactly as a wrong secret); the method
 * that worked is used first for that region from then on. A wrong secret therefore costs two
 * token requests, both with the same credentials.
 */
export class TokenEndpoint {
  readonly #http: UpstreamHttp;
  readonly #upstreams: Record<Region, UpstreamRegion>;
  readonly #log: TokenLog;
  readonly #clientAuth: Record<Region, ClientAuthMethod> = { eu: 'form', au: 'form' };
  /** Quirks already logged, per region: one line each, not one per token. */
  readonly #told = new Set<string>();

  constructor(options: {
    http: UpstreamHttp;
    upstreams: Record<Region, UpstreamRegion>;
    log: TokenLog;
  }) {
    this.#http = options.http;
    this.#upstreams = options.upstreams;
    this.#log = options.log;
  }

  /**
   * Obtains an access token for `credentials` in `region`.
   *
   * @throws InvalidCredentialsError when the endpoint refuses the client with either method
   *   (unknown ID or wrong secret alike); ProblemError 429/502/503 `token_endpoint_error` when it
   *   fails or redirects, 502 `token_endpoint_unreachable`, 504 `token_endpoint_timeout`, 502
   *   `token_unreadable` for a token that cannot be used.
   */
  async request(
    region: Region,
    credentials: { clientId: string; clientSecret: string },
    purpose: TokenPurpose,
  ): Promise<IssuedToken> {
    const first = this.#clientAuth[region];
    const answer = await this.#send(region, credentials, first, purpose, false);
    if (!('status' in answer)) return answer;
    const context = { region, clientId: credentials.clientId };
    if (!refusesClientAuth(answer)) {
      this.#log.info(
        { ...context, ...refusalFields(answer), tried: [first] },
        'the token endpoint refused the client credentials',
      );
      throw new InvalidCredentialsError('the token endpoint refused the client credentials');
    }
    const other: ClientAuthMethod = first === 'form' ? 'basic' : 'form';
    // Any 400 or 401 to the other method is a refusal too: a server that knows only form fields
    // may answer a Basic attempt with invalid_request for the fields it misses.
    const retried = await this.#send(region, credentials, other, purpose, true);
    if (!('status' in retried)) {
      this.#clientAuth[region] = other;
      this.#log.warn(
        { ...context, ...refusalFields(answer), refused: first, accepted: other },
        `the token endpoint accepted ${METHOD_WORDS[other]} after refusing ${METHOD_WORDS[first]}: this region's token requests use ${METHOD_WORDS[other]} from now on`,
      );
      return retried;
    }
    this.#log.info(
      {
        ...context,
        ...refusalFields(answer),
        tried: [first, other],
        retryStatus: retried.status,
        ...(retried.error ? { retryError: retried.error } : {}),
      },
      `the token endpoint refused the client credentials as ${METHOD_WORDS[first]} and as ${METHOD_WORDS[other]}`,
    );
    throw new InvalidCredentialsError('the token endpoint refused the client credentials');
  }

  /**
   * One token request; a refusal of the client (401, or 400 with a credentials error of RFC 6749
   * 5.2, or with `anyRefusal` any 400) is returned, every other failure thrown.
   */
  async #send(
    region: Region,
    credentials: { clientId: string; clientSecret: string },
    method: ClientAuthMethod,
    purpose: TokenPurpose,
    anyRefusal: boolean,
  ): Promise<IssuedToken | Refusal> {
    const url = `${this.#upstreams[region].authUrl}${TOKEN_PATH}`;
    const fail = (
      status: number,
      code: TokenProblemCode,
      message: string,
      details: Record<string, unknown> = {},
    ) => {
      this.#log.warn({ region, tokenEndpoint: hostOf(url), code, ...details }, message);
      return tokenProblem(status, code, region, purpose);
    };
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (method === 'basic') headers.authorization = basicAuthorization(credentials);
    else {
      form.set('client_id', credentials.clientId);
      form.set('client_secret', credentials.clientSecret);
    }

    let response: UpstreamResponse;
    let text: string;
    try {
      response = await this.#http.send({ method: 'POST', url, headers, body: form.toString() });
      if (response.statusCode >= 300 && response.statusCode < 400) {
        await discard(response.body);
        throw fail(
          502,
          'token_endpoint_error',
          'the token endpoint answered with a redirect, which is not followed',
          { status: response.statusCode },
        );
      }
      text = await readCapped(response.body);
    } catch (error) {
      const cause = error instanceof ProblemError ? error.problem.code : errorCode(error);
      if (cause.startsWith('token_')) throw error;
      if (cause === 'upstream_body_too_large')
        throw fail(502, 'token_endpoint_error', 'the token endpoint answered an oversized body');
      if (cause === 'upstream_timeout')
        throw fail(
          504,
          'token_endpoint_timeout',
          `the token endpoint did not answer within ${this.#http.timeoutMs} ms`,
          { timeoutMs: this.#http.timeoutMs },
        );
      throw fail(502, 'token_endpoint_unreachable', 'the token endpoint could not be reached', {
        cause,
      });
    }
    const json = isJsonMediaType(mediaType(response.headers)) ? safeJson(text) : undefined;

    if (response.statusCode === 200) {
      const token = VendorTokenSchema.safeParse(json);
      if (!token.success)
        throw fail(502, 'token_unreadable', 'the token endpoint answered an unusable token', {
          fields: [...new Set(token.error.issues.map((issue) => issue.path.join('.') || 'body'))],
        });
      this.#noteQuirks(region, json, token.data.expires_in ?? undefined);
      return {
        accessToken: token.data.access_token,
        expiresInS: token.data.expires_in ?? undefined,
      };
    }
    const oauthError = OAuthErrorBodySchema.safeParse(json);
    const error = oauthError.success ? oauthError.data.error : undefined;
    if (
      response.statusCode === 401 ||
      (response.statusCode === 400 &&
        (anyRefusal || (error !== undefined && CREDENTIAL_ERRORS.has(error))))
    )
      return {
        status: response.statusCode,
        error,
        errorDescription: oauthError.success
          ? oauthError.data.error_description?.slice(0, 200)
          : undefined,
        asksForBasic: /(^|,)\s*basic(\s|,|$)/i.test(headerText(response, 'www-authenticate')),
      };
    const status =
      response.statusCode === 429 || response.statusCode === 503 ? response.statusCode : 502;
    throw fail(
      status,
      'token_endpoint_error',
      `the token endpoint failed with HTTP ${response.statusCode}`,
      { status: response.statusCode, ...(error ? { error } : {}) },
    );
  }

  /** Logs, once per region, an answer that departs from the vendor's guide but is read all the same. */
  #noteQuirks(region: Region, json: unknown, expiresInS: number | undefined): void {
    const body = json as { expires_in?: unknown; expiresIn?: unknown };
    const sent = body.expires_in ?? body.expiresIn;
    if (expiresInS === undefined && !this.#told.has(`${region} no expires_in`)) {
      this.#told.add(`${region} no expires_in`);
      this.#log.warn(
        { region },
        'the token endpoint sent no expires_in: its tokens are used until the upstream refuses one (401), then renewed',
      );
    } else if (typeof sent === 'string' && !this.#told.has(`${region} string expires_in`)) {
      this.#told.add(`${region} string expires_in`);
      this.#log.info({ region }, 'the token endpoint sent expires_in as a string: read as seconds');
    }
  }
}

type TokenProblemCode =
  | 'token_endpoint_error'
  | 'token_endpoint_unreachable'
  | 'token_endpoint_timeout'
  | 'token_unreadable';

/** Words an operator reads for a token failure, per purpose: what happened and what to do. */
function tokenProblem(
  status: number,
  code: TokenProblemCode,
  region: Region,
  purpose: TokenPurpose,
): ProblemError {
  const endpoint = `The ${REGION_NAMES[region]} token endpoint`;
  const retry =
    purpose === 'sign-in'
      ? 'Sign in again in a moment.'
      : 'Nothing was sent; try again in a moment.';
  const what: Record<TokenProblemCode, string> = {
    token_endpoint_error: `${endpoint} failed or could not be used. ${retry} If it persists, the sign-in service of the upstream is having trouble.`,
    token_endpoint_unreachable: `${endpoint} could not be reached. ${retry}`,
    token_endpoint_timeout: `${endpoint} did not answer in time. ${retry}`,
    token_unreadable: `${endpoint} answered with a token that cannot be used, and trying again will not change that. Report it to the upstream's support with the time of this message.`,
  };
  return new ProblemError(status, code, what[code]);
}

/**
 * `Authorization: Basic` for client credentials (RFC 6749 2.3.1): each part form-urlencoded
 * (appendix B) before the pair is base64-encoded as RFC 7617 says.
 */
function basicAuthorization(credentials: { clientId: string; clientSecret: string }): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  const pair = `${encode(credentials.clientId)}:${encode(credentials.clientSecret)}`;
  return `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
}

/** A 401, or a 400 `invalid_client`: the server did not accept how the client authenticated. */
function refusesClientAuth(refusal: Refusal): boolean {
  return refusal.status === 401 || refusal.error === 'invalid_client';
}

function refusalFields(refusal: Refusal): Record<string, unknown> {
  return {
    status: refusal.status,
    ...(refusal.error ? { error: refusal.error } : {}),
    ...(refusal.errorDescription ? { errorDescription: refusal.errorDescription } : {}),
    ...(refusal.asksForBasic ? { asksForBasic: true } : {}),
  };
}

function headerText(response: UpstreamResponse, name: string): string {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'unknown';
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown';
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
