import { randomBytes } from 'node:crypto';
import type { Role } from '#domain/roles.ts';
import type { Region } from '#domain/token.ts';

/** OWASP ASVS 5, V7. */
export const SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** A working day, then sign in again. */
export const SESSION_ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/** Issuer and subject name the person for good. */
export interface OperatorIdentity {
  issuer: string;
  subject: string;
  name?: string;
  email?: string;
  role: Role;
}

/** A company sign-in holds no client credentials: the region's vendor connection serves everyone. */
export interface StoredSessionData {
  region: Region;
  clientId?: string;
  /** Never answered, logged or sent anywhere but the token endpoint. */
  clientSecret?: string;
  operatorName?: string;
  operator?: OperatorIdentity;
  /** Sent back only as `id_token_hint` at sign-out. */
  idToken?: string;
}

/** `id` is the cookie value. */
export interface StoredSession extends StoredSessionData {
  id: string;
  createdAtMs: number;
  lastSeenAtMs: number;
}

export type SessionData = StoredSessionData & { clientId: string; clientSecret: string };

export type Session = StoredSession & { clientId: string; clientSecret: string };

/** `find` answers only live sessions: it destroys one past its timeouts, else records its use. */
export interface SessionStore {
  create(data: StoredSessionData, nowMs: number): Promise<StoredSession>;
  find(id: string, nowMs: number): Promise<StoredSession | undefined>;
  destroy(id: string): Promise<void>;
}

/** 32 bytes from the CSPRNG, base64url. */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** Anything else is not looked up at all. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function isExpired(
  session: Pick<Session, 'createdAtMs' | 'lastSeenAtMs'>,
  nowMs: number,
): boolean {
  return (
    nowMs - session.lastSeenAtMs >= SESSION_IDLE_TIMEOUT_MS ||
    nowMs - session.createdAtMs >= SESSION_ABSOLUTE_TIMEOUT_MS
  );
}
