import type { FastifyRequest } from 'fastify';
import type { Permission } from '#domain/roles.ts';
import { notSignedIn } from '../http/problem.ts';
import type { OperatorIdentity, Session, StoredSession } from './session-store.ts';
import type { Sessions } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    productSession: Session | null;
    signedInSession: StoredSession | null;
  }
}

export interface SignInKeeper {
  /** No promise per request in the common case. */
  rememberCaller(session: Session): Promise<void> | undefined;
}

/**
 * 401 and 403 come before the input (src/server/README.md). With `keeper`, every product route keeps
 * the sign-in the read model reads under fresh (docs/security.md).
 */
export function requireSession(sessions: Sessions, permission?: Permission, keeper?: SignInKeeper) {
  return async (request: FastifyRequest): Promise<void> => {
    request.productSession = await sessions.require(request, permission);
    const keeping = keeper?.rememberCaller(request.productSession);
    if (keeping) await keeping;
  };
}

export function sessionOf(request: FastifyRequest): Session {
  if (!request.productSession) throw new Error('a declared route ran without requireSession');
  return request.productSession;
}

export function requirePerson(sessions: Sessions, permission: Permission) {
  return async (request: FastifyRequest): Promise<void> => {
    const signedIn = await sessions.current(request);
    if (!signedIn) throw notSignedIn();
    request.productSession = await sessions.require(request, permission);
    request.signedInSession = signedIn;
  };
}

export function requireOperator(sessions: Sessions, permission: Permission) {
  return async (request: FastifyRequest): Promise<void> => {
    request.signedInSession = await sessions.requireOperator(request, permission);
  };
}

export function signedInOf(request: FastifyRequest): StoredSession {
  if (!request.signedInSession)
    throw new Error('a declared route ran without requirePerson or requireOperator');
  return request.signedInSession;
}

export function operatorOf(request: FastifyRequest): OperatorIdentity {
  const { operator } = signedInOf(request);
  if (!operator) throw new Error('a declared route ran without requireOperator');
  return operator;
}
