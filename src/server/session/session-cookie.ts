import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_ID_PATTERN } from './session-store.ts';

/** Cookie name and attributes, which depend on whether the public origin is https. */
export interface SessionCookie {
  name: string;
  secure: boolean;
}

/**
 * `__Host-powerdeck_session` with `Secure` when the public origin is https (the prefix pins the
 * cookie to this host, path `/`, secure only); the plain name over http, which loopback needs
 * (browsers refuse `__Host-` cookies without https).
 */
export function sessionCookieFor(publicOrigin: string): SessionCookie {
  const secure = publicOrigin.startsWith('https:');
  return { name: secure ? '__Host-powerdeck_session' : 'powerdeck_session', secure };
}

const ATTRIBUTES = { httpOnly: true, sameSite: 'strict', path: '/' } as const;

/** The session ID the browser presented, when it has our shape; anything else counts as none. */
export function readSessionId(request: FastifyRequest, cookie: SessionCookie): string | undefined {
  const value = request.cookies[cookie.name];
  return value !== undefined && SESSION_ID_PATTERN.test(value) ? value : undefined;
}

/** Sets the session cookie: HttpOnly, SameSite=Strict, Path=/, a session cookie (no Max-Age). */
export function setSessionCookie(reply: FastifyReply, cookie: SessionCookie, id: string): void {
  reply.setCookie(cookie.name, id, { ...ATTRIBUTES, secure: cookie.secure });
}

/** Tells the browser to forget the session cookie. */
export function clearSessionCookie(reply: FastifyReply, cookie: SessionCookie): void {
  reply.clearCookie(cookie.name, { ...ATTRIBUTES, secure: cookie.secure });
}
