import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { ProblemError } from '../http/problem.ts';

/**
 * Decision 007, section 5. A header, not a body field, so a retry under the same `Idempotency-Key`
 * after the page read a newer version is still the same request the ledger replays. Like
 * `If-Match`, answered 409 `device_changed` naming what changed.
 */
export const DEVICE_VERSION_HEADER = 'powerdeck-device-version';

const DeviceVersionHeaderSchema = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,14})$/)
  .transform(Number);

/** Undefined when absent. @throws ProblemError 400 `invalid_request` when not a whole number. */
export function readDeviceVersion(headers: IncomingHttpHeaders): number | undefined {
  const raw = headers[DEVICE_VERSION_HEADER];
  if (raw === undefined) return undefined;
  const parsed = DeviceVersionHeaderSchema.safeParse(Array.isArray(raw) ? raw.join(',') : raw);
  if (!parsed.success)
    throw new ProblemError(
      400,
      'invalid_request',
      'The version of the device this change was made against could not be read. Nothing was sent; reload the page and make the change again.',
    );
  return parsed.data;
}
