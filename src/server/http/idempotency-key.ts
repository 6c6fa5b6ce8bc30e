import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { ProblemError } from './problem.ts';

/**
 * IETF httpapi-idempotency-key draft: an sf-string, a bare token accepted too. Undefined when absent.
 *
 * @throws ProblemError 400 `invalid_idempotency_key` when present but malformed.
 */
export function readIdempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  const key = /^"(.*)"$/.exec(value)?.[1] ?? value;
  if (!/^[\x21\x23-\x5B\x5D-\x7E]{1,255}$/.test(key))
    throw new ProblemError(
      400,
      'invalid_idempotency_key',
      'This change came with a malformed retry token, so it was not sent. Reload the page and make the change again.',
    );
  return key;
}

/**
 * The `Idempotency-Key` a change may carry, declared in the OpenAPI document (the typed client
 * then offers it); {@link readIdempotencyKey} reads it. Other headers pass as they came.
 */
export const IdempotencyKeyHeadersSchema = z.looseObject({
  'idempotency-key': z
    .string()
    .optional()
    .describe(
      'Up to 255 visible characters, one per change (a UUID): the same key sent again after a timeout gets the first answer, not a second change (IETF httpapi-idempotency-key draft).',
    ),
});
