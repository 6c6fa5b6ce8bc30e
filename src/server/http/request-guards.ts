import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from './problem.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** Refused before routing, so no path escapes the allowlist by normalisation; IDs never hold them. */
const SUSPICIOUS_PATH = /%2f|%5c|%2e|%00|\\|(^|\/)\.{1,2}(\/|$)/i;

export function isSuspiciousPath(rawUrl: string): boolean {
  const queryAt = rawUrl.indexOf('?');
  const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  return SUSPICIOUS_PATH.test(path) || (path.startsWith('/api/') && path.includes('//'));
}

/** Where CSRF, no-store and problem+json apply. */
export function isApiPath(rawUrl: string): boolean {
  return rawUrl === '/api' || rawUrl.startsWith('/api/') || rawUrl.startsWith('/api?');
}

/** The IdP's redirect back (a top-level GET); its defence is the OAuth `state` (RFC 6749 10.12). */
const CROSS_SITE_ARRIVAL = '/api/session/oidc/callback';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The token of an `Authorization: Bearer` header, else undefined. */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  return BEARER.exec(request.headers.authorization ?? '')?.[1];
}

/**
 * OWASP CSRF cheat sheet (docs/architecture.md, BFF surface): non-GET `/api` calls need `X-CSRF: 1`
 * and the public `Origin`; cross-site `/api` calls are refused but for the IdP's redirect back.
 * A request with a bearer token and no cookie at all is no browser's ambient credential, so it is
 * not asked for them (docs/security.md, API tokens); one that also carries a cookie still is.
 */
export function csrfRefusal(request: FastifyRequest, publicOrigin: string): string | null {
  if (request.headers.cookie === undefined && bearerTokenOf(request) !== undefined) return null;
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

/** In `onRequest`, before body parsing, so refused requests reach neither a handler nor the upstream. */
export function installRequestGuards(app: FastifyInstance, publicOrigin: () => string): void {
  // A callback hook: no promise per request on the path every call takes.
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
