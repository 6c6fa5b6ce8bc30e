import { createHash } from 'node:crypto';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import { isApiPath } from './request-guards.ts';

/**
 * The `<style>` texts React Aria inserts, allowed by hash; `security-headers.test.ts` reads them
 * out of the installed react-aria, so an upgrade that changes one fails there.
 */
export const REACT_ARIA_STYLES = [
  '@layer {\n  [data-react-aria-pressable] {\n    touch-action: pan-x pan-y pinch-zoom;\n  }\n}',
  '@layer {\n  * {\n    overscroll-behavior: contain;\n  }\n}',
] as const;

export function styleHashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * Same-origin only, no framing, no `'unsafe-inline'` (docs/security.md). A hash, not a nonce: a
 * nonce would make index.html per request, no longer precompressed nor computed once.
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

/** Those that act on an API answer, per the OWASP REST Security cheat sheet; the rest act on documents. */
const API_HEADER_NAMES = new Set([
  'content-security-policy',
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'cross-origin-resource-policy',
  'strict-transport-security',
]);

const ANSWER_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection']);

/**
 * `Cache-Control: no-store` on API answers. Computed once on a probe answer: @fastify/helmet
 * rebuilds its middleware per request, about a tenth of CPU per proxied GET (bench CPU profile).
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

  // Runs for every answer, refusals included; overrides a handler's value.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(isApiPath(request.raw.url ?? '/') ? apiHeaders : documentHeaders);
    done(null, payload);
  });
}

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
