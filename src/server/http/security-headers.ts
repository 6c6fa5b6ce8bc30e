import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import { isApiPath } from './request-guards.ts';

/**
 * Content Security Policy of every response: scripts, styles and connections from this origin
 * only, no framing (issue 2: CSP `script-src 'self'`, `frame-ancestors 'none'`).
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
};

/**
 * Security headers on every response (helmet: CSP, nosniff, `Referrer-Policy: no-referrer`, HSTS
 * only over https) and `Cache-Control: no-store` on API answers (issue 4).
 */
export async function installSecurityHeaders(
  app: FastifyInstance,
  options: { https: boolean },
): Promise<void> {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: options.https ? { maxAge: 31_536_000 } : false,
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (isApiPath(request.raw.url ?? '/')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
