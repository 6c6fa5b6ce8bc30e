import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { DeviceCommandsRecorder } from '../ledger/device-commands-recorder.ts';
import { ProblemError } from '../http/problem.ts';

/**
 * `Powerdeck-Device-Version`: the version of the device a change was made against, as the read
 * model's answers about its commands carry it (docs/decisions/007-device-call-budget.md, section
 * 5). A request header rather than a body field: the bodies are the command itself (shared with
 * batches, the queue and the ledger's fingerprint), and a retry of one intent under its
 * `Idempotency-Key` made after the page read a newer version is still the same request, which
 * the ledger must replay, not refuse as another. It works as `If-Match` does for a resource, with
 * the product's own answer (409 `device_changed` naming what changed) instead of a bare 412.
 */
export const DEVICE_VERSION_HEADER = 'powerdeck-device-version';

const DeviceVersionHeaderSchema = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,14})$/)
  .transform(Number);

/**
 * The `Powerdeck-Device-Version` header, parsed; undefined when absent.
 *
 * @throws ProblemError 400 `invalid_request` when present but not a whole number.
 */
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

/**
 * Where a device's version and what changed since come from: the read model of device commands
 * (`DeviceCommandsRecorder.changesSince`, docs/architecture.md, Read model); the person's own
 * changes are left out with `exceptBy`, so they never make their own view stale.
 */
export type DeviceVersions = Pick<DeviceCommandsRecorder, 'changesSince'>;
