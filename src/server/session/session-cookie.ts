import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_ID_PATTERN } from './session-store.ts';

export interface SessionCookie {
  name: string;
  secure: boolean;
}

/**
 * `name` with the `__Host-` prefix over https only: browsers refuse it without, and loopback
 * needs http.
 */
export function hostCookieName(name: string, secure: boolean): string {
  return secure ? `__Host-${name}` : name;
}

export function sessionCookieFor(publicOrigin: string): SessionCookie {
  const secure = publicOrigin.startsWith('https:');
  return { name: hostCookieName('powerdeck_session', secure), secure };
}

const ATTRIBUTES = { httpOnly: true, sameSite: 'strict', path: '/' } as const;

export function readSessionId(request: FastifyRequest, cookie: SessionCookie): string | undefined {
  const value = request.cookies[cookie.name];
  return value !== undefined && SESSION_ID_PATTERN.test(value) ? value : undefined;
}

export function setSessionCookie(reply: FastifyReply, cookie: SessionCookie, id: string): void {
  reply.setCookie(cookie.name, id, { ...ATTRIBUTES, secure: cookie.secure });
}

export function clearSessionCookie(reply: FastifyReply, cookie: SessionCookie): void {
  reply.clearCookie(cookie.name, { ...ATTRIBUTES, secure: cookie.secure });
}
