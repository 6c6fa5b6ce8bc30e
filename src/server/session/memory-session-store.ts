import {
  isExpired,
  newSessionId,
  type Session,
  type SessionData,
  type SessionStore,
} from './session-store.ts';

/**
 * Sessions in this process's memory: lost at restart and not shared between instances. For tests
 * and single-instance use; the database store is the default when a database is available.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Session>();

  async create(data: SessionData, nowMs: number): Promise<Session> {
    this.#sweep(nowMs);
    const session: Session = {
      ...data,
      id: newSessionId(),
      createdAtMs: nowMs,
      lastSeenAtMs: nowMs,
    };
    this.#sessions.set(session.id, session);
    return { ...session };
  }

  async find(id: string, nowMs: number): Promise<Session | undefined> {
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
