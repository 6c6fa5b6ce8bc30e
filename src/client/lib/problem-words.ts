import { z } from 'zod';
import { UPSTREAM_ERROR_STATUS, WindowOverlapDetailsSchema } from '../../domain/errors.ts';
import { POWER_CONTROL_PROPERTIES } from '../../domain/power-control.ts';
import { BFF_PROBLEM_CODES } from '../../domain/problems.ts';
import type { ApiError } from './api-error.ts';
import { POWER_CONTROL_WORDS, formatPropertyValue } from './power-control-words.ts';
import { formatWindowInZoneWithUtc } from './time.ts';

/** The upstream error body a problem carries in `upstream` (docs/architecture.md, BFF surface). */
const UpstreamBodySchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});

/** `details` of a 422 `capability_out_of_range` (docs/architecture.md, Upstream contract). */
const OutOfRangeDetailsSchema = z.object({
  deviceId: z.string(),
  property: z.enum(POWER_CONTROL_PROPERTIES),
  value: z.number(),
  min: z.number(),
  max: z.number(),
});

/** `details` of a 400 `invalid_request`: which fields failed. */
const InvalidRequestDetailsSchema = z.object({
  issues: z.array(z.object({ field: z.string() })),
});

const WINDOW_FIELDS = new Set(['startTime', 'endTime']);

function upstreamDetails(error: ApiError): unknown {
  const body = UpstreamBodySchema.safeParse(error.upstream);
  return body.success ? body.data.details : undefined;
}

/** Words for a problem the upstream (the vendor's service) answered, from its code and fields. */
function upstreamWords(error: ApiError, timeZone: string): string {
  const details = upstreamDetails(error);
  switch (error.code) {
    case 'window_overlap': {
      const overlap = WindowOverlapDetailsSchema.safeParse(details);
      if (!overlap.success)
        return 'The window overlaps another command of this device that is waiting or running. Cancel that command first, or choose a window that does not overlap it (windows may touch).';
      const { conflictingCommandId, startTime, endTime } = overlap.data;
      return `The window overlaps command ${conflictingCommandId}, ${formatWindowInZoneWithUtc(startTime, endTime, timeZone)}. Cancel that command first, or choose a window that does not overlap it (windows may touch).`;
    }
    case 'capability_out_of_range': {
      const range = OutOfRangeDetailsSchema.safeParse(details);
      if (!range.success)
        return "A value is outside the device's capability range. Keep each value inside the range shown beside its field.";
      const { deviceId, property, value, min, max } = range.data;
      const words = POWER_CONTROL_WORDS[property];
      return `${words.name} ${formatPropertyValue(property, value)} is outside the range of ${deviceId} (${formatPropertyValue(property, min)} to ${formatPropertyValue(property, max)}). Choose a value inside it.`;
    }
    case 'not_cancellable':
      return 'The command has already reached a final status: a completed command cannot be cancelled, and a cancelled one stays cancelled.';
    case 'site_not_bound':
      return 'The site of this device is not bound to your client any more, so its commands cannot be read or changed.';
    case 'already_bound':
      return 'The site is already bound.';
    case 'not_found':
      return 'The vendor does not know this site, device or command. Check the ID, or reload the page to see the current ones.';
    case 'invalid_request': {
      const invalid = InvalidRequestDetailsSchema.safeParse(details);
      if (invalid.success && invalid.data.issues.some((issue) => WINDOW_FIELDS.has(issue.field)))
        return 'The vendor refused the effective window: it must end in the future and after its start. Choose another window.';
      return 'The vendor refused the request as not valid. Check the values and the window, then try again.';
    }
    case 'rate_limited':
      return "The vendor's service asked for fewer requests. Try again in a moment.";
    default:
      return error.status >= 500
        ? "The vendor's service is not answering. Try again in a moment."
        : 'The vendor refused the request. Reload the page and try again; if it is refused again, report it with the details below.';
  }
}

/**
 * A problem in an operator's words, from its `code` and fields, never from the vendor's own
 * `message` (which may cite its specification, or carry timestamps as the wire writes them):
 * an upstream refusal (`upstream` set, or one of the upstream codes) is worded here, times on
 * `timeZone` with UTC beside; a problem the powerdeck server wrote itself keeps its `detail`,
 * which is written for operators (docs/architecture.md, BFF surface).
 *
 * @param timeZone IANA zone of the site the change was for; `UTC` when none.
 */
export function problemWords(error: ApiError, timeZone = 'UTC'): string {
  const upstreamOnly = error.code in UPSTREAM_ERROR_STATUS && !(error.code in BFF_PROBLEM_CODES);
  if (error.upstream !== undefined || upstreamOnly) return upstreamWords(error, timeZone);
  return error.detail;
}

/**
 * What support needs to trace a problem: its code and, when the vendor answered, the vendor's own
 * message. Shown folded under the operator's words, never in their place.
 */
export function problemSupportDetail(error: ApiError): string {
  const body = UpstreamBodySchema.safeParse(error.upstream);
  return body.success
    ? `Code ${error.code} (HTTP ${error.status}). The vendor's message: ${body.data.message}`
    : `Code ${error.code} (HTTP ${error.status}).`;
}

/** The command a `window_overlap` refusal names, with its window; undefined for other problems. */
export function overlapConflict(
  error: ApiError,
): z.infer<typeof WindowOverlapDetailsSchema> | undefined {
  if (error.code !== 'window_overlap') return undefined;
  const overlap = WindowOverlapDetailsSchema.safeParse(upstreamDetails(error));
  return overlap.success ? overlap.data : undefined;
}
