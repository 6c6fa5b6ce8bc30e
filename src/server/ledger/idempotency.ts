import { createHash } from 'node:crypto';

/**
 * A fingerprint of what a request asks for (its kind, upstream path, parsed body and, for an undo,
 * the `Idempotency-Key` of the change it undoes), so one key reused for a different request is
 * recognised (IETF httpapi-idempotency-key draft: 422). Object keys are sorted and undefined
 * members dropped, so equal requests give equal fingerprints; without `undoOf` the fingerprint is
 * the one stored before undo existed, so those entries still replay.
 */
export function requestFingerprint(
  kind: string,
  path: string,
  body: unknown,
  undoOf?: string,
): string {
  const parts = [kind, path, canonical(body)];
  if (undoOf !== undefined) parts.push({ undoOf });
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
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
