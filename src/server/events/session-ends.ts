import { inArray } from 'drizzle-orm';
import type { Database } from '#infra/database.ts';
import { sessions } from '../db/schema.ts';
import {
  SESSION_ABSOLUTE_TIMEOUT_MS,
  SESSION_IDLE_TIMEOUT_MS,
  type SessionStore,
  type StoredSession,
  type StoredSessionData,
} from '../session/session-store.ts';

/** docs/security.md. An open event stream does not count as use: a tab left open must time out. */
export function sessionDeadlineMs(session: { createdAtMs: number; lastSeenAtMs: number }): number {
  return Math.min(
    session.createdAtMs + SESSION_ABSOLUTE_TIMEOUT_MS,
    session.lastSeenAtMs + SESSION_IDLE_TIMEOUT_MS,
  );
}

/** Without touching their last use. A session not in the answer has ended. */
export async function readSessionDeadlines(
  db: Database,
  sessionHashes: readonly string[],
): Promise<Map<string, number>> {
  const deadlines = new Map<string, number>();
  if (sessionHashes.length === 0) return deadlines;
  const rows = await db
    .select({
      idHash: sessions.idHash,
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
    })
    .from(sessions)
    .where(inArray(sessions.idHash, [...sessionHashes]));
  for (const row of rows)
    deadlines.set(
      row.idHash,
      sessionDeadlineMs({
        createdAtMs: row.createdAt.getTime(),
        lastSeenAtMs: row.lastSeenAt.getTime(),
      }),
    );
  return deadlines;
}

/** So a destroyed session's streams close at once on every instance; expiry needs no announcement. */
export class AnnouncedSessionStore implements SessionStore {
  readonly #inner: SessionStore;
  readonly #onEnded: (sessionId: string) => Promise<void> | void;

  constructor(inner: SessionStore, onEnded: (sessionId: string) => Promise<void> | void) {
    this.#inner = inner;
    this.#onEnded = onEnded;
  }

  create(data: StoredSessionData, nowMs: number): Promise<StoredSession> {
    return this.#inner.create(data, nowMs);
  }

  find(id: string, nowMs: number): Promise<StoredSession | undefined> {
    return this.#inner.find(id, nowMs);
  }

  async destroy(id: string): Promise<void> {
    await this.#inner.destroy(id);
    await this.#onEnded(id);
  }
}
