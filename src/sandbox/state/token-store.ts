import { createHash, randomBytes } from 'node:crypto';
import type { Region } from '#domain/token.ts';
import type { ClientIdentity } from './client-identity.ts';
import type { StateChange, TokenEntity } from './persistence.ts';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The issued bearer tokens (docs/upstream.md, Tokens), kept as SHA-256 hashes only, so neither memory nor the
 * store holds a usable token. Tokens expire on the sandbox clock.
 */
export class TokenStore {
  private tokens = new Map<string, TokenEntity>();

  /**
   * Issues a token for `client`, valid `ttlS` seconds from `nowMs` (epoch ms), and forgets the
   * tokens expired by then; both are recorded in `change`. Returns the token itself.
   */
  issue(client: ClientIdentity, ttlS: number, nowMs: number, change: StateChange): string {
    const token = randomBytes(32).toString('base64url');
    const entity: TokenEntity = {
      tokenHash: hashToken(token),
      clientId: client.clientId,
      region: client.region,
      expiresAtMs: nowMs + ttlS * 1000,
    };
    for (const [hash, existing] of this.tokens)
      if (existing.expiresAtMs <= nowMs) this.tokens.delete(hash);
    change.tokensExpiredBeforeMs = nowMs;
    this.tokens.set(entity.tokenHash, entity);
    change.tokens.push(entity);
    return token;
  }

  /** The client of a token valid at `nowMs` in `region`, else `undefined` (401 for the caller). */
  authenticate(token: string, region: Region, nowMs: number): ClientIdentity | undefined {
    const entity = this.tokens.get(hashToken(token));
    if (!entity || entity.region !== region || entity.expiresAtMs <= nowMs) return undefined;
    return { clientId: entity.clientId, region: entity.region };
  }

  /** Every token held, expired ones included (a reset keeps them). */
  all(): TokenEntity[] {
    return [...this.tokens.values()];
  }

  /** Replaces the tokens with persisted ones. */
  adopt(tokens: TokenEntity[]): void {
    this.tokens = new Map(tokens.map((token) => [token.tokenHash, token]));
  }
}
