import { createHash } from 'node:crypto';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import { isApiPath } from './request-guards.ts';

/**
 * The `<style>` elements React Aria (3.53.1, the version react-aria-components 1.22.1 pins)
 * inserts into the page, text for text: `usePress` adds the first to every page with a pressable
 * element (no double-tap zoom delay on touch screens), `usePreventScroll` the second while a
 * modal or popover is open on iOS (no scroll chaining behind it). Each text is fixed, so the CSP
 * allows exactly these two by hash. `security-headers.test.ts` reads them out of the installed
 * react-aria, so an upgrade that changes one fails there, and `e2e/console-errors.spec.ts` fails
 * on any CSP violation in the browser.
 */
export const REACT_ARIA_STYLES = [
  '@layer {\n  [data-react-aria-pressable] {\n    touch-action: pan-x pan-y pinch-zoom;\n  }\n}',
  '@layer {\n  * {\n    overscroll-behavior: contain;\n  }\n}',
] as const;

/** A CSP hash source (`'sha256-<base64>'`) for an inline `<style>` whose text is `text`. */
export function styleHashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * Content Security Policy of every response: scripts, styles and connections from this origin
 * only, no framing: an injected script or a framing page gets nowhere (docs/security.md). Inline
 * styles: only React Aria's two fixed ones ({@link REACT_ARIA_STYLES}), by hash. A hash, not a
 * nonce: React Aria would take a nonce (from `<meta name="csp-nonce">`), but a nonce must be new
 * in every page answer, so index.html would be rewritten per request and could no longer be
 * served precompressed from disk, and these headers could no longer be computed once; the hash
 * of a fixed text costs nothing per request. No `'unsafe-inline'`.
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", ...REACT_ARIA_STYLES.map(styleHashSource)],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
};

/**
 * The helmet headers an API answer (JSON, never rendered as a document) keeps, as the OWASP REST
 * Security cheat sheet lists them: CSP (its `frame-ancestors 'none'`), nosniff, no referrer, no
 * framing, same-origin reads, HSTS over https. The others (COOP, Origin-Agent-Cluster, DNS
 * prefetch, IE download options, Flash/PDF policies, X-XSS-Protection) only act on documents.
 */
const API_HEADER_NAMES = new Set([
  'content-security-policy',
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'cross-origin-resource-policy',
  'strict-transport-security',
]);

/** Headers of the probe's answer that describe the answer itself, not its security. */
const ANSWER_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection']);

/**
 * Security headers on every response (helmet: CSP, nosniff, `Referrer-Policy: no-referrer`, HSTS
 * only over https) and `Cache-Control: no-store` on API answers, so no cache keeps what one
 * operator saw. API answers carry the subset of {@link API_HEADER_NAMES}; pages and assets carry
 * all of helmet's.
 *
 * The headers do not depend on the request, so helmet computes them once at start-up, on a probe
 * answer: @fastify/helmet 13 rebuilds helmet's middleware (CSP directives parsed again) on every
 * request, which was about a tenth of the BFF's CPU per proxied GET (bench CPU profile).
 */
export async function installSecurityHeaders(
  app: FastifyInstance,
  options: { https: boolean },
): Promise<void> {
  const documentHeaders = await helmetHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: options.https ? { maxAge: 31_536_000 } : false,
    crossOriginEmbedderPolicy: false,
  });
  const apiHeaders: Record<string, string> = { 'cache-control': 'no-store' };
  for (const [name, value] of Object.entries(documentHeaders))
    if (API_HEADER_NAMES.has(name)) apiHeaders[name] = value;

  // onSend runs for every answer, refusals and errors included; it overrides a handler's value.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(isApiPath(request.raw.url ?? '/') ? apiHeaders : documentHeaders);
    done(null, payload);
  });
}

/** The headers helmet sets with `options`, read from one answer of a throwaway Fastify. */
async function helmetHeaders(options: FastifyHelmetOptions): Promise<Record<string, string>> {
  const probe = Fastify({ logger: false });
  try {
    await probe.register(helmet, { global: true, ...options });
    probe.get('/', (_request, reply) => reply.send(''));
    const answer = await probe.inject({ method: 'GET', url: '/' });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers))
      if (!ANSWER_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
    return headers;
  } finally {
    await probe.close();
  }
}
