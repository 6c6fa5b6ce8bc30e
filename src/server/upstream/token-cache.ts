import { ProblemError } from '../http/problem.ts';
import { InvalidCredentialsError, type IssuedToken } from './token-endpoint.ts';
import type { UpstreamCaller } from './upstream-caller.ts';

/**
 * A token as the cache holds it, times in epoch ms. From `renewAtMs` on it is still used, while a
 * renewal runs beside the calls; from `expiresAtMs` on it is not. Both are infinite for a token
 * of unknown lifetime, which is used until the upstream refuses it.
 */
interface CachedToken {
  accessToken: string;
  obtainedAtMs: number;
  renewAtMs: number;
  expiresAtMs: number;
  /** No renewal is started before this (a failed one waits before the next try). */
  nextRenewalAtMs: number;
  /** Failed renewals in a row, for the pause before the next. */
  failedRenewals: number;
}

/**
 * Renew this long before `expires_in` runs out (docs/upstream.md, Tokens: read `expires_in`;
 * docs/architecture.md, Regions and tokens: Renewal): a fifth of the lifetime, at most a minute,
 * so a call never leaves with a token about to expire on the way.
 */
export function renewalMarginMs(expiresInS: number): number {
  return Math.min(60_000, (expiresInS * 1000) / 5);
}

/** Pause after a failed renewal while the token is still valid; doubles per failure... */
export const RENEWAL_RETRY_MIN_MS = 1_000;
/** ...up to this. */
export const RENEWAL_RETRY_MAX_MS = 30_000;

/** Where the cache writes what went wrong (pino's logger fits). */
export interface TokenCacheLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Access tokens per session, in this process's memory only (never stored, answered or logged).
 * Renewal is single-flight per session: concurrent calls on an expired token share one token
 * request (docs/architecture.md, Budgets: one token request per burst of 100 calls).
 *
 * Inside the renewal margin the cached token keeps serving calls while one renewal runs beside
 * them: a token endpoint that is down costs nothing until the token really expires. A failed
 * renewal is logged and tried again after a pause ({@link RENEWAL_RETRY_MIN_MS}, doubling to
 * {@link RENEWAL_RETRY_MAX_MS}); once the token has expired, calls wait for a renewal and fail
 * with it. Refused credentials drop the token, so the next call ends the session.
 */
export class TokenCache {
  readonly #tokens = new Map<string, CachedToken>();
  readonly #pending = new Map<string, Promise<CachedToken>>();
  readonly #fetch: (session: UpstreamCaller) => Promise<IssuedToken>;
  readonly #now: () => number;
  readonly #log: TokenCacheLog;
  readonly #unknownLifetimeKeepMs: number;

  /**
   * @param fetch the token request for a session (its region's token endpoint).
   * @param now clock, epoch ms.
   * @param options.unknownLifetimeKeepMs how long a token without `expires_in` is kept at most,
   *   ms: the longest a session lives.
   */
  constructor(
    fetch: (session: UpstreamCaller) => Promise<IssuedToken>,
    now: () => number,
    options: { log: TokenCacheLog; unknownLifetimeKeepMs: number },
  ) {
    this.#fetch = fetch;
    this.#now = now;
    this.#log = options.log;
    this.#unknownLifetimeKeepMs = options.unknownLifetimeKeepMs;
  }

  /**
   * A usable token for `session`, from the cache or one shared token request.
   *
   * @throws InvalidCredentialsError or the token endpoint's ProblemError when no unexpired token
   *   is cached and the renewal fails.
   */
  async get(session: UpstreamCaller): Promise<string> {
    return this.cached(session) ?? (await this.#renew(session)).accessToken;
  }

  /**
   * The cached token of `session` until it expires, else undefined; inside the renewal margin it
   * also starts a renewal in the background (no request is awaited here).
   */
  cached(session: UpstreamCaller): string | undefined {
    const cached = this.#tokens.get(session.id);
    if (!cached) return undefined;
    const nowMs = this.#now();
    if (nowMs < cached.renewAtMs) return cached.accessToken;
    if (nowMs >= cached.expiresAtMs) return undefined;
    if (nowMs >= cached.nextRenewalAtMs && !this.#pending.has(session.id))
      this.#renewAhead(session, cached);
    return cached.accessToken;
  }

  /** Stores a token just obtained (at sign-in). */
  put(sessionId: string, token: IssuedToken): void {
    this.#sweep();
    this.#tokens.set(sessionId, toCached(token, this.#now()));
  }

  /**
   * Forgets `accessToken` after the upstream refused it (401); a newer token obtained meanwhile
   * by a concurrent call is kept.
   */
  invalidate(sessionId: string, accessToken: string): void {
    if (this.#tokens.get(sessionId)?.accessToken === accessToken) this.#tokens.delete(sessionId);
  }

  /** Forgets a session's token (sign-out, expiry). */
  drop(sessionId: string): void {
    this.#tokens.delete(sessionId);
  }

  /** Count of cached tokens, for tests and health. */
  get size(): number {
    return this.#tokens.size;
  }

  #renew(session: UpstreamCaller): Promise<CachedToken> {
    let pending = this.#pending.get(session.id);
    if (!pending) {
      const requestedAtMs = this.#now();
      pending = this.#fetch(session)
        .then((token) => {
          const cached = toCached(token, requestedAtMs);
          this.#tokens.set(session.id, cached);
          return cached;
        })
        .finally(() => this.#pending.delete(session.id));
      this.#pending.set(session.id, pending);
    }
    return pending;
  }

  /** A renewal while `cached` is still valid: its failure keeps `cached` and sets a pause. */
  #renewAhead(session: UpstreamCaller, cached: CachedToken): void {
    this.#renew(session).catch((error: unknown) => {
      if (error instanceof InvalidCredentialsError) {
        this.invalidate(session.id, cached.accessToken);
        return;
      }
      cached.failedRenewals += 1;
      const pauseMs = Math.min(
        RENEWAL_RETRY_MAX_MS,
        RENEWAL_RETRY_MIN_MS * 2 ** (cached.failedRenewals - 1),
      );
      const nowMs = this.#now();
      cached.nextRenewalAtMs = nowMs + pauseMs;
      this.#log.warn(
        {
          region: session.region,
          clientId: session.clientId,
          ...(error instanceof ProblemError ? { code: error.problem.code } : {}),
          failedRenewals: cached.failedRenewals,
          tokenValidForMs: cached.expiresAtMs - nowMs,
          nextTryInMs: pauseMs,
        },
        'token renewal failed: the cached token is used until it expires, and renewal tried again',
      );
    });
  }

  #sweep(): void {
    const nowMs = this.#now();
    for (const [id, token] of this.#tokens)
      if (token.expiresAtMs <= nowMs || nowMs - token.obtainedAtMs >= this.#unknownLifetimeKeepMs)
        this.#tokens.delete(id);
  }
}

function toCached(token: IssuedToken, requestedAtMs: number): CachedToken {
  const base = { accessToken: token.accessToken, obtainedAtMs: requestedAtMs };
  const retry = { nextRenewalAtMs: 0, failedRenewals: 0 };
  if (token.expiresInS === undefined)
    return { ...base, ...retry, renewAtMs: Infinity, expiresAtMs: Infinity };
  const expiresAtMs = requestedAtMs + token.expiresInS * 1000;
  return {
    ...base,
    ...retry,
    expiresAtMs,
    renewAtMs: expiresAtMs - renewalMarginMs(token.expiresInS),
  };
}
