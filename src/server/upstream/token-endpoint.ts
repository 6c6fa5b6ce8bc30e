import { OAuthErrorBodySchema } from '#domain/errors.ts';
import { REGION_NAMES, type Region } from '#domain/token.ts';
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

/** RFC 6749 5.2 `invalid_client` and kin. */
export class InvalidCredentialsError extends Error {
  override readonly name = 'InvalidCredentialsError';
  readonly code = 'invalid_credentials';
}

const CREDENTIAL_ERRORS = new Set(['invalid_client', 'unauthorized_client', 'invalid_grant']);

export interface IssuedToken {
  accessToken: string;
  /** Undefined when the server sent none: used until refused with 401, then renewed once. */
  expiresInS: number | undefined;
}

/** A vendor client's ID and secret, as the token endpoint takes them (docs/upstream.md, Tokens). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** A token request with a client's credentials. @throws InvalidCredentialsError when refused. */
export type RequestToken = (region: Region, credentials: ClientCredentials) => Promise<IssuedToken>;

/** docs/upstream.md, Tokens. */
export const TOKEN_PATH = '/api/auth/oauth2/token';

/** RFC 6749 2.3.1: `form` as the vendor's guide asks; `basic`, which every server must support. */
export type ClientAuthMethod = 'form' | 'basic';

const METHOD_WORDS: Record<ClientAuthMethod, string> = {
  form: 'form fields',
  basic: 'HTTP Basic',
};

export type TokenPurpose = 'sign-in' | 'renewal';

export interface TokenLog {
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

interface Refusal {
  status: number;
  error: string | undefined;
  errorDescription: string | undefined;
  asksForBasic: boolean;
}

/**
 * The regions' token endpoints (docs/upstream.md, Tokens; docs/architecture.md, Regions and
 * tokens). Failures are logged naming what was wrong, never a secret or a token. Form fields go
 * first; a 401 (or 400 `invalid_client`) is retried once with HTTP Basic, which some servers
 * accept exclusively without saying so, and the method that worked is kept per region.
 */
export class TokenEndpoint {
  readonly #http: UpstreamHttp;
  readonly #upstreams: Record<Region, UpstreamRegion>;
  readonly #log: TokenLog;
  readonly #clientAuth: Record<Region, ClientAuthMethod> = { eu: 'form', au: 'form' };
  /** One log line per region, not one per token. */
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
   * @throws InvalidCredentialsError when the endpoint refuses the client with either method;
   *   ProblemError 429/502/503 `token_endpoint_error`, 502 `token_endpoint_unreachable`, 504
   *   `token_endpoint_timeout`, 502 `token_unreadable`.
   */
  async request(
    region: Region,
    credentials: ClientCredentials,
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
    // A server that knows only form fields may answer Basic with invalid_request.
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

  /** A refusal of the client is returned, every other failure thrown. */
  async #send(
    region: Region,
    credentials: ClientCredentials,
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

/** Each part form-urlencoded (RFC 6749 appendix B) before base64 (RFC 7617). */
function basicAuthorization(credentials: ClientCredentials): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  const pair = `${encode(credentials.clientId)}:${encode(credentials.clientSecret)}`;
  return `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
}

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
