import { createHash } from 'node:crypto';

/**
 * A fingerprint of what a request asks for (its kind, upstream path and parsed body), so one key
 * reused for a different request is recognised (IETF httpapi-idempotency-key draft: 422). Object
 * keys are sorted and undefined members dropped, so equal requests give equal fingerprints.
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
