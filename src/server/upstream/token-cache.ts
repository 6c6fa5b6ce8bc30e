import type { TokenResponse } from '../../domain/token.ts';
import type { UpstreamCaller } from './upstream-caller.ts';

/** A token as the cache holds it; `renewAtMs` is when a call stops using it. */
interface CachedToken {
  accessToken: string;
  renewAtMs: number;
  expiresAtMs: number;
}

/**
 * Renew this long before `expires_in` runs out (spec 5 rule 4): a fifth of the lifetime, at most a
 * minute, so a call never leaves with a token about to expire on the way.
 */
export function renewalMarginMs(expiresInS: number): number {
  return Math.min(60_000, (expiresInS * 1000) / 5);
}

/**
 * Access tokens per session, in this process's memory only (never stored, answered or logged).
 * Renewal is single-flight per session: concurrent calls on an expired token share one token
 * request (docs/architecture.md, Budgets: one token request per burst of 100 calls).
 */
export class TokenCache {
  readonly #tokens = new Map<string, CachedToken>();
  readonly #pending = new Map<string, Promise<CachedToken>>();
  readonly #fetch: (session: UpstreamCaller) => Promise<TokenResponse>;
  readonly #now: () => number;

  constructor(fetch: (session: UpstreamCaller) => Promise<TokenResponse>, now: () => number) {
    this.#fetch = fetch;
    this.#now = now;
  }

  /** A usable token for `session`, from the cache or one shared token request. */
  async get(session: UpstreamCaller): Promise<string> {
    return this.cached(session) ?? (await this.#renew(session)).accessToken;
  }

  /** The cached token of `session` while it is still usable, else undefined (no request made). */
  cached(session: UpstreamCaller): string | undefined {
    const cached = this.#tokens.get(session.id);
    return cached && this.#now() < cached.renewAtMs ? cached.accessToken : undefined;
  }

  /** Stores a token just obtained (at sign-in). */
  put(sessionId: string, token: TokenResponse): void {
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

  #sweep(): void {
    const nowMs = this.#now();
    for (const [id, token] of this.#tokens) if (token.expiresAtMs <= nowMs) this.#tokens.delete(id);
  }
}

function toCached(token: TokenResponse, requestedAtMs: number): CachedToken {
  const expiresAtMs = requestedAtMs + token.expires_in * 1000;
  return {
    accessToken: token.access_token,
    expiresAtMs,
    renewAtMs: expiresAtMs - renewalMarginMs(token.expires_in),
  };
}
