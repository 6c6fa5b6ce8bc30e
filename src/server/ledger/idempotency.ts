import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problem.ts';

/**
 * The `Idempotency-Key` request header (IETF httpapi-idempotency-key draft: an sf-string, so
 * usually quoted; a bare token is accepted too). Printable ASCII without quotes or backslashes,
 * 1 to 255 characters. Undefined when absent.
 *
 * @throws ProblemError 400 `invalid_idempotency_key` when present but malformed.
 */
export function readIdempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  const key = /^"(.*)"$/.exec(value)?.[1] ?? value;
  if (!/^[\x21\x23-\x5B\x5D-\x7E]{1,255}$/.test(key))
    throw new ProblemError(
      400,
      'invalid_idempotency_key',
      'The Idempotency-Key header must be 1-255 printable characters, e.g. a UUID.',
    );
  return key;
}

/**
 * A fingerprint of what a request asks for (its kind, path and parsed body), so one key reused
 * for a different request is recognised (draft: 422).
 */
export function requestFingerprint(kind: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([kind, path, canonical(body)]))
    .digest('base64url');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  return value;
}
