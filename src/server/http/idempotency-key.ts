import type { IncomingHttpHeaders } from 'node:http';
import { ProblemError } from './problem.ts';

/**
 * The `Idempotency-Key` request header (IETF httpapi-idempotency-key draft: an sf-string, so
 * usually quoted; a bare token is accepted too). Printable ASCII without quotes or backslashes,
 * 1 to 255 characters. Undefined when absent.
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
      'The request carried an unreadable resend key. Reload the page and send it again.',
    );
  return key;
}
