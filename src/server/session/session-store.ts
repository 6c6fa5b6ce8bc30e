import { randomBytes } from 'node:crypto';
import type { Region } from '../../domain/token.ts';

/** A session is idle-expired after 30 minutes without a request (OWASP ASVS 5, V7 sessions). */
export const SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** A session ends 12 hours after sign-in whatever its use: a working day, then sign in again. */
export const SESSION_ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/** What sign-in establishes: the partner's client credentials for one region, and who operates. */
export interface SessionData {
  region: Region;
  clientId: string;
  /** Kept server-side only; never answered, logged or sent anywhere but the token endpoint. */
  clientSecret: string;
  operatorName?: string;
}

/** A live server-side session. `id` is the cookie value: 256 random bits, base64url. */
export interface Session extends SessionData {
  id: string;
  createdAtMs: number;
  lastSeenAtMs: number;
}

/**
 * Where sessions live. `find` answers only live sessions: it destroys and hides one past its idle
 * or absolute timeout, and otherwise records `nowMs` as its last use. Implementations: in memory
 * (one BFF instance) and the database (several instances behind a load balancer share them).
 */
export interface SessionStore {
  create(data: SessionData, nowMs: number): Promise<Session>;
  find(id: string, nowMs: number): Promise<Session | undefined>;
  destroy(id: string): Promise<void>;
}

/** A fresh session ID: 32 bytes from the CSPRNG, base64url (43 characters). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** Session IDs as we issue them; anything else is not looked up at all. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** True when a session has outlived its idle or absolute timeout at `nowMs`. */
export function isExpired(
  session: Pick<Session, 'createdAtMs' | 'lastSeenAtMs'>,
  nowMs: number,
): boolean {
  return (
    nowMs - session.lastSeenAtMs >= SESSION_IDLE_TIMEOUT_MS ||
    nowMs - session.createdAtMs >= SESSION_ABSOLUTE_TIMEOUT_MS
  );
}
