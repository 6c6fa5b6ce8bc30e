import { createHash } from 'node:crypto';
import { and, eq, gt, lte, or } from 'drizzle-orm';
import type { Database } from '#infra/database.ts';
import { RoleSchema } from '#domain/roles.ts';
import { RegionSchema } from '#domain/token.ts';
import { sessions } from '../db/schema.ts';
import type { SecretBox } from './secret-box.ts';
import {
  SESSION_ABSOLUTE_TIMEOUT_MS,
  SESSION_IDLE_TIMEOUT_MS,
  isExpired,
  newSessionId,
  type OperatorIdentity,
  type SessionStore,
  type StoredSession,
  type StoredSessionData,
} from './session-store.ts';

/** Idle expiry is exact to within it. */
export const TOUCH_INTERVAL_MS = 15_000;
/** A sign-out elsewhere takes effect here within it; keeps the database off most API calls. */
export const SESSION_CACHE_MS = 1_000;

/** The ID itself is never stored. */
export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/**
 * Shared by every instance, so any serves any session. Expired rows are deleted when found and
 * swept at each sign-in, so expired secrets do not linger.
 */
export class DatabaseSessionStore implements SessionStore {
  readonly #db: Database;
  readonly #box: SecretBox;
  readonly #cache = new Map<string, { session: StoredSession; readAtMs: number }>();

  constructor(db: Database, box: SecretBox) {
    this.#db = db;
    this.#box = box;
  }

  async create(data: StoredSessionData, nowMs: number): Promise<StoredSession> {
    await this.sweep(nowMs);
    const id = newSessionId();
    const idHash = hashSessionId(id);
    const now = new Date(nowMs);
    await this.#db.insert(sessions).values({
      idHash,
      region: data.region,
      clientId: data.clientId ?? null,
      operatorName: data.operatorName ?? data.operator?.name ?? null,
      secretCiphertext:
        data.clientSecret === undefined ? null : this.#box.seal(data.clientSecret, idHash),
      operatorIssuer: data.operator?.issuer ?? null,
      operatorSubject: data.operator?.subject ?? null,
      operatorEmail: data.operator?.email ?? null,
      operatorRole: data.operator?.role ?? null,
      idTokenCiphertext:
        data.idToken === undefined ? null : this.#box.seal(data.idToken, `id_token ${idHash}`),
      createdAt: now,
      lastSeenAt: now,
    });
    return { ...data, id, createdAtMs: nowMs, lastSeenAtMs: nowMs };
  }

  async find(id: string, nowMs: number): Promise<StoredSession | undefined> {
    const cached = this.#cache.get(id);
    if (
      cached &&
      performance.now() - cached.readAtMs < SESSION_CACHE_MS &&
      nowMs - cached.session.lastSeenAtMs < TOUCH_INTERVAL_MS &&
      !isExpired(cached.session, nowMs)
    )
      return { ...cached.session };
    this.#cache.delete(id);
    const session = await this.#read(id, nowMs);
    if (session) {
      if (this.#cache.size >= 10_000) this.#cache.clear();
      this.#cache.set(id, { session, readAtMs: performance.now() });
    }
    return session ? { ...session } : undefined;
  }

  async #read(id: string, nowMs: number): Promise<StoredSession | undefined> {
    const idHash = hashSessionId(id);
    const [row] = await this.#db.select().from(sessions).where(eq(sessions.idHash, idHash));
    if (!row) return undefined;
    const session = {
      createdAtMs: row.createdAt.getTime(),
      lastSeenAtMs: row.lastSeenAt.getTime(),
    };
    if (isExpired(session, nowMs)) {
      await this.destroy(id);
      return undefined;
    }
    const region = RegionSchema.safeParse(row.region);
    let clientSecret: string | undefined;
    let idToken: string | undefined;
    try {
      if (row.secretCiphertext !== null)
        clientSecret = this.#box.open(row.secretCiphertext, idHash);
      if (row.idTokenCiphertext !== null)
        idToken = this.#box.open(row.idTokenCiphertext, `id_token ${idHash}`);
    } catch {
      // Sealed with another key (SESSION_KEY changed): the session cannot be used any more.
      await this.destroy(id);
      return undefined;
    }
    if (!region.success) return undefined;
    const role = RoleSchema.safeParse(row.operatorRole);
    const operator: OperatorIdentity | undefined =
      row.operatorIssuer !== null && row.operatorSubject !== null && role.success
        ? {
            issuer: row.operatorIssuer,
            subject: row.operatorSubject,
            ...(row.operatorName ? { name: row.operatorName } : {}),
            ...(row.operatorEmail ? { email: row.operatorEmail } : {}),
            role: role.data,
          }
        : undefined;
    // A row with neither kind (half-written, or a newer version's) is not used.
    if (!operator && (row.clientId === null || clientSecret === undefined)) return undefined;
    if (nowMs - session.lastSeenAtMs >= TOUCH_INTERVAL_MS) {
      await this.#db
        .update(sessions)
        .set({ lastSeenAt: new Date(nowMs) })
        .where(eq(sessions.idHash, idHash));
      session.lastSeenAtMs = nowMs;
    }
    return {
      id,
      region: region.data,
      ...(row.clientId !== null && clientSecret !== undefined
        ? { clientId: row.clientId, clientSecret }
        : {}),
      ...(row.operatorName ? { operatorName: row.operatorName } : {}),
      ...(operator ? { operator } : {}),
      ...(idToken === undefined ? {} : { idToken }),
      ...session,
    };
  }

  async destroy(id: string): Promise<void> {
    this.#cache.delete(id);
    await this.#db.delete(sessions).where(eq(sessions.idHash, hashSessionId(id)));
  }

  async sweep(nowMs: number): Promise<void> {
    await this.#db
      .delete(sessions)
      .where(
        or(
          lte(sessions.lastSeenAt, new Date(nowMs - SESSION_IDLE_TIMEOUT_MS)),
          lte(sessions.createdAt, new Date(nowMs - SESSION_ABSOLUTE_TIMEOUT_MS)),
        ),
      );
  }

  async count(nowMs: number): Promise<number> {
    const rows = await this.#db
      .select({ idHash: sessions.idHash })
      .from(sessions)
      .where(
        and(
          gt(sessions.lastSeenAt, new Date(nowMs - SESSION_IDLE_TIMEOUT_MS)),
          gt(sessions.createdAt, new Date(nowMs - SESSION_ABSOLUTE_TIMEOUT_MS)),
        ),
      );
    return rows.length;
  }
}
