import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_ID_PATTERN } from './session-store.ts';

export interface SessionCookie {
  name: string;
  secure: boolean;
}

/** `__Host-` only over https: browsers refuse it without, and loopback needs http. */
export function sessionCookieFor(publicOrigin: string): SessionCookie {
  const secure = publicOrigin.startsWith('https:');
  return { name: secure ? '__Host-powerdeck_session' : 'powerdeck_session', secure };
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
