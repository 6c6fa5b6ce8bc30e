import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { accountOf, type Account, type AccountActor } from '#domain/account.ts';
import { API_TOKEN_PREFIX, type ApiToken } from '#domain/api-tokens.ts';
import { RoleSchema, type Role } from '#domain/roles.ts';
import { RegionSchema } from '#domain/token.ts';
import type { Database } from '#infra/database.ts';
import { apiTokens } from '../db/schema.ts';

/** `pdk_<16 hex: the ID>_<43 base64url: 32 random bytes>`. */
const TOKEN_PATTERN = /^pdk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** How often a token's last use is written at most: a script polling a status is one use a minute. */
const LAST_USE_EVERY_MS = 60_000;

/** A token as the BFF acts on it: never its secret or its hash. */
export interface StoredApiToken {
  id: string;
  account: Account;
  name: string;
  role: Role;
  siteIds: string[];
  madeBy: AccountActor;
  madeByName: string;
  expiresAtMs: number;
  revokedAtMs: number | undefined;
  lastUsedAtMs: number | undefined;
  /** Credentials-form sign-in: the maker's vendor secret, sealed to `apiTokenSealingKey(id)`. */
  vendorSecretCiphertext: string | undefined;
}

/** What a secret is sealed to for a token (docs/security.md, API tokens). */
export function apiTokenSealingKey(id: string): string {
  return `api-token:${id}`;
}

/** A new token: a 64-bit ID and 256 random bits from node:crypto, with the scanners' prefix. */
export function newApiTokenSecret(): { id: string; secret: string } {
  const id = randomBytes(8).toString('hex');
  return { id, secret: `${API_TOKEN_PREFIX}${id}_${randomBytes(32).toString('base64url')}` };
}

/** The token ID a presented secret names, or undefined when it is not shaped as one. */
export function apiTokenIdOf(secret: string): string | undefined {
  return TOKEN_PATTERN.exec(secret)?.[1];
}

function hashOf(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/**
 * The API tokens of every account (docs/security.md, API tokens): the secret is kept only as its
 * SHA-256 hash and compared in constant time.
 */
export class ApiTokenStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async create(input: {
    id: string;
    secret: string;
    actor: AccountActor;
    madeByName: string;
    name: string;
    role: Role;
    siteIds: readonly string[];
    vendorSecretCiphertext: string | undefined;
    nowMs: number;
    expiresAtMs: number;
  }): Promise<ApiToken> {
    const [row] = await this.#db
      .insert(apiTokens)
      .values({
        id: input.id,
        ...accountOf(input.actor),
        name: input.name,
        role: input.role,
        siteIds: [...new Set(input.siteIds)],
        secretHash: hashOf(input.secret).toString('base64url'),
        vendorSecretCiphertext: input.vendorSecretCiphertext ?? null,
        madeBy: input.actor,
        madeByName: input.madeByName,
        createdAt: new Date(input.nowMs),
        expiresAt: new Date(input.expiresAtMs),
      })
      .returning();
    if (!row) throw new Error('the token was not stored');
    return listed(row);
  }

  /** Newest first, revoked ones too (with who revoked them). */
  async list(account: Account): Promise<ApiToken[]> {
    const rows = await this.#db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.region, account.region), eq(apiTokens.clientId, account.clientId)))
      .orderBy(desc(apiTokens.createdAt));
    return rows.map(listed);
  }

  /**
   * The token a presented secret is, whatever its expiry or revocation (the caller says which);
   * undefined for a secret powerdeck did not make.
   */
  async verify(secret: string): Promise<StoredApiToken | undefined> {
    const id = apiTokenIdOf(secret);
    if (!id) return undefined;
    const [row] = await this.#db.select().from(apiTokens).where(eq(apiTokens.id, id));
    if (!row) return undefined;
    const stored = Buffer.from(row.secretHash, 'base64url');
    const presented = hashOf(secret);
    if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) return undefined;
    return {
      id: row.id,
      account: { region: RegionSchema.parse(row.region), clientId: row.clientId },
      name: row.name,
      role: RoleSchema.parse(row.role),
      siteIds: row.siteIds,
      madeBy: row.madeBy as AccountActor,
      madeByName: row.madeByName,
      expiresAtMs: row.expiresAt.getTime(),
      revokedAtMs: row.revokedAt?.getTime(),
      lastUsedAtMs: row.lastUsedAt?.getTime(),
      vendorSecretCiphertext: row.vendorSecretCiphertext ?? undefined,
    };
  }

  /** Writes the last use when the one stored is a minute old or more. */
  async noteUse(token: StoredApiToken, nowMs: number): Promise<void> {
    if (token.lastUsedAtMs !== undefined && nowMs - token.lastUsedAtMs < LAST_USE_EVERY_MS) return;
    await this.#db
      .update(apiTokens)
      .set({ lastUsedAt: new Date(nowMs) })
      .where(eq(apiTokens.id, token.id));
  }

  /**
   * Revokes a token of `account` (a revoked one keeps its first revocation).
   *
   * @returns the token as now listed; undefined when the account has no such token.
   */
  async revoke(
    account: Account,
    id: string,
    byName: string,
    nowMs: number,
  ): Promise<ApiToken | undefined> {
    const ofAccount = and(
      eq(apiTokens.id, id),
      eq(apiTokens.region, account.region),
      eq(apiTokens.clientId, account.clientId),
    );
    const [row] = await this.#db.select().from(apiTokens).where(ofAccount);
    if (!row) return undefined;
    if (row.revokedAt) return listed(row);
    const [revoked] = await this.#db
      .update(apiTokens)
      .set({ revokedAt: new Date(nowMs), revokedByName: byName, vendorSecretCiphertext: null })
      .where(ofAccount)
      .returning();
    return revoked ? listed(revoked) : undefined;
  }
}

function listed(row: typeof apiTokens.$inferSelect): ApiToken {
  return {
    id: row.id,
    name: row.name,
    region: RegionSchema.parse(row.region),
    clientId: row.clientId,
    role: RoleSchema.parse(row.role),
    siteIds: row.siteIds,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    madeBy: row.madeByName,
    ...(row.lastUsedAt ? { lastUsedAt: row.lastUsedAt.toISOString() } : {}),
    ...(row.revokedAt ? { revokedAt: row.revokedAt.toISOString() } : {}),
    ...(row.revokedByName ? { revokedBy: row.revokedByName } : {}),
  };
}
