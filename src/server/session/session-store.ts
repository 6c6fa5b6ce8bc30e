import { randomBytes } from 'node:crypto';
import type { Role } from '../../domain/roles.ts';
import type { Region } from '../../domain/token.ts';

/** A session is idle-expired after 30 minutes without a request (OWASP ASVS 5, V7 sessions). */
export const SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** A session ends 12 hours after sign-in whatever its use: a working day, then sign in again. */
export const SESSION_ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/**
 * The person a company sign-in (OpenID Connect) authenticated: the ID token's issuer and subject,
 * which name them for good, their display name and e-mail at sign-in, and their role.
 */
export interface OperatorIdentity {
  issuer: string;
  subject: string;
  name?: string;
  email?: string;
  role: Role;
}

/**
 * What sign-in establishes. The credentials form: the partner's client credentials for one region
 * and an optional typed operator name. A company sign-in: the operator's identity and role, the
 * region they work in, and the ID token (for the IdP's logout); no client credentials, since the
 * region's vendor connection serves every operator.
 */
export interface StoredSessionData {
  region: Region;
  clientId?: string;
  /** Kept server-side only; never answered, logged or sent anywhere but the token endpoint. */
  clientSecret?: string;
  operatorName?: string;
  operator?: OperatorIdentity;
  /** Company sign-in: the ID token, sent back only as `id_token_hint` at sign-out. */
  idToken?: string;
}

/** A live stored session. `id` is the cookie value: 256 random bits, base64url. */
export interface StoredSession extends StoredSessionData {
  id: string;
  createdAtMs: number;
  lastSeenAtMs: number;
}

/** What the credentials form stores: always client credentials. */
export type SessionData = StoredSessionData & { clientId: string; clientSecret: string };

/**
 * A session that can act upstream: its client credentials are its own (credentials form) or the
 * region's vendor connection (company sign-in), and `id` keys the cached token.
 */
export type Session = StoredSession & { clientId: string; clientSecret: string };

/**
 * Where sessions live. `find` answers only live sessions: it destroys and hides one past its idle
 * or absolute timeout, and otherwise records `nowMs` as its last use. Implementations: in memory
 * (one BFF instance) and the database (several instances behind a load balancer share them).
 */
export interface SessionStore {
  create(data: StoredSessionData, nowMs: number): Promise<StoredSession>;
  find(id: string, nowMs: number): Promise<StoredSession | undefined>;
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
