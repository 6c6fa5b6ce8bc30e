import { ProblemError } from '../http/problem.ts';
import { InvalidCredentialsError, type IssuedToken } from './token-endpoint.ts';
import type { UpstreamCaller } from './upstream-caller.ts';

/** From `renewAtMs` it is renewed beside the calls; both infinite for a token of unknown lifetime. */
interface CachedToken {
  accessToken: string;
  obtainedAtMs: number;
  renewAtMs: number;
  expiresAtMs: number;
  nextRenewalAtMs: number;
  failedRenewals: number;
}

/**
 * A fifth of the lifetime, at most a minute, so no call leaves with a token about to expire
 * (docs/architecture.md, Regions and tokens).
 */
export function renewalMarginMs(expiresInS: number): number {
  return Math.min(60_000, (expiresInS * 1000) / 5);
}

/** Doubles per failed renewal, up to {@link RENEWAL_RETRY_MAX_MS}. */
export const RENEWAL_RETRY_MIN_MS = 1_000;
export const RENEWAL_RETRY_MAX_MS = 30_000;

export interface TokenCacheLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Access tokens per session, in memory only (never stored, answered or logged). Renewal is
 * single-flight per session, and runs beside the calls inside the margin, so a token endpoint that
 * is down costs nothing until the token expires (docs/architecture.md, Regions and tokens).
 * Refused credentials drop the token, so the next call ends the session.
 */
export class TokenCache {
  readonly #tokens = new Map<string, CachedToken>();
  readonly #pending = new Map<string, Promise<CachedToken>>();
  readonly #fetch: (session: UpstreamCaller) => Promise<IssuedToken>;
  readonly #now: () => number;
  readonly #log: TokenCacheLog;
  readonly #unknownLifetimeKeepMs: number;

  /** @param options.unknownLifetimeKeepMs the longest a token without `expires_in` is kept. */
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
   * @throws InvalidCredentialsError or the token endpoint's ProblemError when no unexpired token
   *   is cached and the renewal fails.
   */
  async get(session: UpstreamCaller): Promise<string> {
    return this.cached(session) ?? (await this.#renew(session)).accessToken;
  }

  /** Inside the renewal margin it also starts a renewal in the background. */
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

  put(sessionId: string, token: IssuedToken): void {
    this.#sweep();
    this.#tokens.set(sessionId, toCached(token, this.#now()));
  }

  /** A newer token obtained meanwhile by a concurrent call is kept. */
  invalidate(sessionId: string, accessToken: string): void {
    if (this.#tokens.get(sessionId)?.accessToken === accessToken) this.#tokens.delete(sessionId);
  }

  drop(sessionId: string): void {
    this.#tokens.delete(sessionId);
  }

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
