import {
  isExpired,
  newSessionId,
  type SessionStore,
  type StoredSession,
  type StoredSessionData,
} from './session-store.ts';

/**
 * Sessions in this process's memory: lost at restart and not shared between instances. For tests
 * and single-instance use; the database store is the default when a database is available.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, StoredSession>();

  async create(data: StoredSessionData, nowMs: number): Promise<StoredSession> {
    this.#sweep(nowMs);
    const session: StoredSession = {
      ...data,
      id: newSessionId(),
      createdAtMs: nowMs,
      lastSeenAtMs: nowMs,
    };
    this.#sessions.set(session.id, session);
    return { ...session };
  }

  async find(id: string, nowMs: number): Promise<StoredSession | undefined> {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    if (isExpired(session, nowMs)) {
      this.#sessions.delete(id);
      return undefined;
    }
    session.lastSeenAtMs = nowMs;
    return { ...session };
  }

  async destroy(id: string): Promise<void> {
    this.#sessions.delete(id);
  }

  #sweep(nowMs: number): void {
    for (const [id, session] of this.#sessions)
      if (isExpired(session, nowMs)) this.#sessions.delete(id);
  }
}
