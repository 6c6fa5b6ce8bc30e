import { z } from 'zod';
import {
  DEFAULT_DEVICE_CALLS_PER_WINDOW,
  DEVICE_CALL_WINDOW_MS,
  deviceBudgetWords,
} from '#domain/device-budget.ts';
import {
  UnknownDevicesDetailsSchema,
  unknownDevicesWords,
  type CapabilityOutOfRangeDetails,
  type UnknownDevicesDetails,
} from '#domain/errors.ts';
import { POWER_CONTROL_WORDS } from '#domain/power-control.ts';
import { ProblemError, titleFor, type ProblemHeaders } from '../http/problem.ts';
import { isJsonMediaType, mediaType, readCapped, type UpstreamResponse } from './upstream-http.ts';
import { readVendorError } from './vendor-schemas.ts';

export type VendorOperation =
  | 'sites'
  | 'site'
  | 'devices'
  | 'bind'
  | 'unbind'
  | 'submit'
  | 'status'
  | 'cancel'
  | 'history'
  | 'batch'
  | 'batchCancel'
  | 'latestData'
  | 'latestDataQuery'
  | 'telemetryHistory'
  | 'configuration'
  | 'alarms';

export interface RefusalContext {
  operation: VendorOperation;
  deviceId?: string | undefined;
  deviceIds?: readonly string[] | undefined;
  siteId?: string | undefined;
  outOfRange?: CapabilityOutOfRangeDetails | undefined;
  overlap?: OverlapDetails | undefined;
  /** When a rate limit lifts. */
  nowMs: number;
}

export function outOfRangeWords(details: CapabilityOutOfRangeDetails): string {
  const { inSentence, unit } = POWER_CONTROL_WORDS[details.property];
  const gap = unit === '%' ? '' : ' ';
  return `The ${inSentence} of ${details.value}${gap}${unit} is outside the range of ${details.deviceId} (${details.min}${gap}${unit} to ${details.max}${gap}${unit}). Choose a value inside it.`;
}

export interface OverlapDetails {
  conflictingCommandId: string;
  startTime: string;
  endTime: string;
}

export function windowOverlapWords(device: string, overlap: OverlapDetails | undefined): string {
  return `The window overlaps ${overlap ? `command ${overlap.conflictingCommandId}` : 'another command'} of ${device}, which is waiting or running. Cancel that command first, or choose a window that does not overlap it (windows may touch).`;
}

/**
 * A vendor refusal as the product problem of decision 006 (section 2, its table); the vendor's
 * body in `upstream` for support.
 */
export function refusalProblem(
  statusCode: number,
  responseHeaders: UpstreamResponse['headers'],
  text: string,
  context: RefusalContext,
): ProblemError {
  const body = isJsonMediaType(mediaType(responseHeaders)) ? safeJson(text) : undefined;
  const error = readVendorError(body);
  const upstream = body === undefined ? {} : { upstream: body };
  const headers: ProblemHeaders = {};
  const retryAfter = headerText(responseHeaders['retry-after']);
  if (retryAfter && /^[\w ,:-]{1,64}$/.test(retryAfter)) headers['retry-after'] = retryAfter;
  const make = (
    status: number,
    code: ConstructorParameters<typeof ProblemError>[1],
    words: string,
    details?: unknown,
  ) => {
    const problem = new ProblemError(status, code, words, {
      ...upstream,
      headers,
      title: titleFor(status),
    });
    if (details !== undefined) problem.problem.details = details;
    return problem;
  };
  const code = error?.errorCode?.toUpperCase();
  const device =
    context.deviceId ?? (context.deviceIds?.length === 1 ? context.deviceIds[0] : undefined);
  const thisDevice = device ?? 'a device of this batch';

  if (statusCode >= 300 && statusCode < 400)
    return make(
      502,
      'upstream_error',
      "The vendor's service answered with a redirect, which is not followed. Report it to the vendor's support.",
    );
  switch (statusCode) {
    case 400:
      return make(
        502,
        'upstream_refused_request',
        "The vendor's service refused what powerdeck sent as not valid. This is a defect of powerdeck, not of your input; report it with the time of this message.",
      );
    case 401:
      return make(
        401,
        'not_signed_in',
        "The vendor's service no longer accepts this account's access. Sign in again.",
      );
    case 404: {
      const unknown =
        context.operation === 'batch' ? unknownBatchDevices(error?.message, context) : undefined;
      return unknown
        ? make(404, 'unknown_or_unbound', unknownDevicesWords(unknown), unknown)
        : make(404, 'unknown_or_unbound', notFoundWords(context));
    }
    case 409:
      return conflict(make, context, code, thisDevice);
    case 422:
      if (code === 'DEVICE_NOT_SUPPORTED')
        return make(
          422,
          'control_not_supported',
          `${device ?? 'A device of this batch'} does not support a control of this command. Leave that control out, or send the command to another device.`,
        );
      if (code === undefined || code === 'CAPABILITY_EXCEEDED')
        return context.outOfRange
          ? make(
              422,
              'capability_out_of_range',
              outOfRangeWords(context.outOfRange),
              context.outOfRange,
            )
          : make(
              422,
              'capability_out_of_range',
              `A value of this command is outside what ${thisDevice} accepts (the vendor does not say which). Check each value against the device's range and the battery's ratings.`,
            );
      return make(
        422,
        'upstream_refused',
        `The vendor's service refused this change for ${thisDevice}${error?.message ? `: "${error.message.slice(0, 200)}"` : ''}. Change the command or the devices, or ask the vendor's support.`,
      );
    case 429:
      return rateLimited(make, context, error, retryAfter);
    case 403:
      return make(
        403,
        'upstream_refused',
        "The vendor's service does not allow this account to do this. Ask the vendor's support which access rights the account needs.",
      );
    default:
      if (statusCode >= 500)
        return make(
          statusCode <= 599 ? statusCode : 502,
          'upstream_error',
          "The vendor's service failed. Try again in a moment; if it persists, the vendor's service is having trouble.",
        );
      return make(
        statusCode >= 400 && statusCode < 500 ? 422 : 502,
        'upstream_refused',
        "The vendor's service refused this request for a reason powerdeck does not know. Reload the page; if it is refused again, report it with the details below.",
      );
  }
}

/** @throws nothing: a body that breaks off is read as empty. */
export async function refusalOf(
  response: UpstreamResponse,
  context: RefusalContext,
): Promise<ProblemError> {
  const text = await readCapped(response.body).catch(() => '');
  return refusalProblem(response.statusCode, response.headers, text, context);
}

type Make = (
  status: number,
  code: ConstructorParameters<typeof ProblemError>[1],
  words: string,
  details?: unknown,
) => ProblemError;

function conflict(make: Make, context: RefusalContext, code: string | undefined, device: string) {
  switch (context.operation) {
    case 'submit':
    case 'batch':
      if (code !== undefined && code !== 'TIME_WINDOW_OVERLAP') break;
      return make(
        409,
        'window_overlap',
        windowOverlapWords(device, context.overlap),
        context.overlap,
      );
    case 'cancel':
      return make(
        409,
        'not_cancellable',
        'This command has completed or was cancelled already, so it cannot be cancelled.',
      );
    case 'batchCancel':
      return make(
        409,
        'batch_not_cancellable',
        'Every command of this batch has finished, so there is nothing left to cancel.',
      );
    case 'bind':
      return make(
        409,
        'site_bound_elsewhere',
        `${context.siteId ? `Site ${context.siteId}` : 'The site'} is bound to another partner account: a site belongs to one account at a time. Ask the other account to unbind it, or the vendor's support.`,
      );
    default:
      break;
  }
  return make(
    409,
    'upstream_refused',
    "The vendor's service refused this change as in conflict with the device's state. Reload the page to see the current commands, then try again if it still applies.",
  );
}

function rateLimited(
  make: Make,
  context: RefusalContext,
  error: ReturnType<typeof readVendorError>,
  retryAfter: string | undefined,
): ProblemError {
  const named = error?.details?.deviceId;
  const deviceId =
    typeof named === 'string'
      ? named
      : (context.deviceId ?? (context.deviceIds?.length === 1 ? context.deviceIds[0] : undefined));
  const waitS = retryAfterSeconds(retryAfter, context.nowMs);
  const retryAt =
    waitS === undefined ? undefined : new Date(context.nowMs + waitS * 1000).toISOString();
  const who = deviceId ?? 'A device of this request';
  const when =
    waitS === undefined
      ? 'It takes the next one within a minute.'
      : `It takes the next one in ${waitS} second${waitS === 1 ? '' : 's'}.`;
  // The vendor names its limit in the refusal (docs/upstream.md, Rate limit).
  const limit = Number(error?.details?.limit);
  const windowS = Number(error?.details?.windowSeconds);
  const allowed = deviceBudgetWords({
    limit: Number.isInteger(limit) && limit > 0 ? limit : DEFAULT_DEVICE_CALLS_PER_WINDOW,
    windowMs: Number.isInteger(windowS) && windowS > 0 ? windowS * 1000 : DEVICE_CALL_WINDOW_MS,
  });
  return make(
    429,
    'device_rate_limited',
    `${who} has had all its calls for this minute (the vendor allows ${allowed}). ${when}`,
    { ...(deviceId ? { deviceId } : {}), ...(retryAt ? { retryAt } : {}) },
  );
}

function notFoundWords(context: RefusalContext): string {
  switch (context.operation) {
    case 'bind':
      return `No site with Plant ID ${context.siteId ?? ''} was found. Check the ID in the Plant ID column of the vendor's portal.`;
    case 'unbind':
    case 'site':
      return `Site ${context.siteId ?? ''} was not found, or it is not bound to this account. Reload the sites page to see the bound sites.`;
    case 'batch':
    case 'batchCancel':
      return "This batch, or one of its devices, was not found, or a device's site is not bound to this account. Reload the page and check the devices' sites.";
    default:
      return `${context.deviceId ?? 'The device'} or this command was not found, or its site is not bound to this account. Check the device; if its site was unbound, bind it again on the sites page.`;
  }
}

/** Only IDs of the batch sent are kept, so a changed message never names a device not picked. */
const VendorUnknownDevicesSchema = z
  .string()
  .max(20_000)
  .transform((message) => /^devices: (.+?) (?:is|are) not found\b/.exec(message)?.[1] ?? '')
  .transform((list) => list.split(/,\s*/).filter((id) => id.length > 0));

function unknownBatchDevices(
  message: string | undefined,
  context: RefusalContext,
): UnknownDevicesDetails | undefined {
  const named = VendorUnknownDevicesSchema.safeParse(message);
  if (!named.success) return undefined;
  const sent = new Set(context.deviceIds ?? []);
  const details = UnknownDevicesDetailsSchema.safeParse({
    deviceIds: [...new Set(named.data.filter((id) => sent.has(id)))],
  });
  return details.success ? details.data : undefined;
}

function retryAfterSeconds(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const dateMs = Date.parse(value);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, Math.ceil((dateMs - nowMs) / 1000));
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function safeJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
