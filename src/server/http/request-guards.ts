import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from './problem.ts';

/** Methods that change nothing and so need no CSRF proof (RFC 9110 9.2.1 safe methods we serve). */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Encoded slashes, backslashes and dots, and dot segments: refused in any path before a route
 * sees it, so no path can escape the allowlist by normalisation on either side. IDs never
 * contain them (domain `ID_PATTERN`).
 */
const SUSPICIOUS_PATH = /%2f|%5c|%2e|%00|\\|(^|\/)\.{1,2}(\/|$)/i;

/** True when a request path (without its query) is one the BFF refuses before routing. */
export function isSuspiciousPath(rawUrl: string): boolean {
  const queryAt = rawUrl.indexOf('?');
  const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  return SUSPICIOUS_PATH.test(path) || (path.startsWith('/api/') && path.includes('//'));
}

/** True for the API namespace, where CSRF, no-store and problem+json apply. */
export function isApiPath(rawUrl: string): boolean {
  return rawUrl === '/api' || rawUrl.startsWith('/api/') || rawUrl.startsWith('/api?');
}

/**
 * The one `/api` request that arrives from another site by design: the company IdP's redirect
 * back after sign-in (a top-level GET navigation). Its defence is the OAuth 2.0 `state` bound to
 * the sealed attempt cookie (RFC 6749 10.12), checked by the route; it changes nothing but the
 * browser's own session.
 */
const CROSS_SITE_ARRIVAL = '/api/session/oidc/callback';

/**
 * Why a request fails the CSRF defence, or null when it passes (docs/architecture.md, BFF surface;
 * OWASP CSRF cheat sheet: custom request header plus Origin verification, and Fetch Metadata).
 * Every non-GET `/api` call needs `X-CSRF: 1` and an `Origin` equal to the public origin; any
 * `/api` call from another site (`Sec-Fetch-Site: cross-site`) is refused, but for the IdP's
 * redirect back to the company sign-in callback (a GET).
 */
export function csrfRefusal(request: FastifyRequest, publicOrigin: string): string | null {
  if (request.headers['sec-fetch-site'] === 'cross-site' && !isCrossSiteArrival(request))
    return 'Requests from another site are refused.';
  if (SAFE_METHODS.has(request.method)) return null;
  if (request.headers['x-csrf'] !== '1')
    return 'The X-CSRF: 1 header is missing; requests that change something must come from the powerdeck page.';
  if (request.headers.origin !== publicOrigin)
    return `The request's Origin is not ${publicOrigin}; requests that change something must come from the powerdeck page.`;
  return null;
}

function isCrossSiteArrival(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false;
  const url = request.raw.url ?? '/';
  const queryAt = url.indexOf('?');
  return (queryAt === -1 ? url : url.slice(0, queryAt)) === CROSS_SITE_ARRIVAL;
}

/**
 * Installs the guards that run on every request before any handler: the path check (400
 * `invalid_path`) and, on `/api`, the CSRF check (403 `csrf`). They run in `onRequest`, before
 * body parsing, so refused requests never reach a handler or the upstream.
 */
export function installRequestGuards(app: FastifyInstance, publicOrigin: () => string): void {
  // A callback hook, not an async one: no promise per request on the path every call takes.
  app.addHook('onRequest', (request, _reply, done) => {
    const url = request.raw.url ?? '/';
    if (isSuspiciousPath(url)) {
      done(
        new ProblemError(
          400,
          'invalid_path',
          'The path contains an encoded slash, an encoded dot or a dot segment, which are refused.',
        ),
      );
      return;
    }
    const refusal = isApiPath(url) ? csrfRefusal(request, publicOrigin()) : null;
    done(refusal ? new ProblemError(403, 'csrf', refusal) : undefined);
  });
}
