import type { FastifyRequest } from 'fastify';
import type { Permission } from '../../domain/roles.ts';
import { notSignedIn } from '../http/problem.ts';
import type { OperatorIdentity, Session, StoredSession } from './session-store.ts';
import type { Sessions } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in session, checked before the route's input (product routes). */
    productSession: Session | null;
    /**
     * The session as stored, the person's own (live updates, notifications, connections), checked
     * before the route's input.
     */
    signedInSession: StoredSession | null;
  }
}

/** Who keeps the account's sign-in for reads made without a request (the read model). */
export interface SignInKeeper {
  /** Undefined when there was nothing to keep (the common case: no promise per request). */
  rememberCaller(session: Session): Promise<void> | undefined;
}

/**
 * The `preValidation` hook of a declared route that acts for the region's account: requires a
 * session whose role may do `permission` (src/server/README.md, request order: 401 and 403 come
 * before the input is looked at), read back with {@link sessionOf}. With `keeper`, the session's
 * sign-in is handed to it: the read model reads the account's devices under the sign-in its
 * people use (docs/security.md), so every product route keeps it fresh.
 */
export function requireSession(sessions: Sessions, permission?: Permission, keeper?: SignInKeeper) {
  return async (request: FastifyRequest): Promise<void> => {
    request.productSession = await sessions.require(request, permission);
    const keeping = keeper?.rememberCaller(request.productSession);
    if (keeping) await keeping;
  };
}

/** The session {@link requireSession} or {@link requirePerson} put on the request. */
export function sessionOf(request: FastifyRequest): Session {
  if (!request.productSession) throw new Error('a declared route ran without requireSession');
  return request.productSession;
}

/**
 * The `preValidation` hook of a declared route of the signed-in person (live updates,
 * notifications): 401 without a session, then as {@link requireSession}; read back with
 * {@link signedInOf} (the person) and {@link sessionOf} (the account).
 */
export function requirePerson(sessions: Sessions, permission: Permission) {
  return async (request: FastifyRequest): Promise<void> => {
    const signedIn = await sessions.current(request);
    if (!signedIn) throw notSignedIn();
    request.productSession = await sessions.require(request, permission);
    request.signedInSession = signedIn;
  };
}

/**
 * The `preValidation` hook of a route of company sign-in's operators (vendor connections):
 * `Sessions.requireOperator`, read back with {@link signedInOf}.
 */
export function requireOperator(sessions: Sessions, permission: Permission) {
  return async (request: FastifyRequest): Promise<void> => {
    request.signedInSession = await sessions.requireOperator(request, permission);
  };
}

/** The stored session {@link requirePerson} or {@link requireOperator} put on the request. */
export function signedInOf(request: FastifyRequest): StoredSession {
  if (!request.signedInSession)
    throw new Error('a declared route ran without requirePerson or requireOperator');
  return request.signedInSession;
}

/** The operator {@link requireOperator} put on the request. */
export function operatorOf(request: FastifyRequest): OperatorIdentity {
  const { operator } = signedInOf(request);
  if (!operator) throw new Error('a declared route ran without requireOperator');
  return operator;
}
