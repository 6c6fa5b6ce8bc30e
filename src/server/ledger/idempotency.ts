import { createHash } from 'node:crypto';

/**
 * So a reused key with a different request is recognised (IETF httpapi-idempotency-key draft:
 * 422). Without `undoOf` it is the one stored before undo existed, so those entries still replay.
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
