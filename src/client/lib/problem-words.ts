import { z } from 'zod';
import {
  BudgetTooTightDetailsSchema,
  CapabilityOutOfRangeDetailsSchema,
  ControlNotSupportedDetailsSchema,
  DeviceRateLimitedDetailsSchema,
  UnknownDevicesDetailsSchema,
  unknownDevicesWords,
} from '#domain/errors.ts';
import { deviceBudgetWords, deviceCallBudgetOf } from '#domain/device-budget.ts';
import { CHANGE_LEAD_TIME_WORDS } from '#domain/lead-time.ts';
import { DeviceCommandChangesSchema, type DeviceCommandChange } from '#domain/read-model.ts';
import { CANCELLATION_REASON_WORDS } from '#domain/words.ts';
import type { ApiError } from './api-error.ts';
import { POWER_CONTROL_WORDS, formatPropertyValue } from './power-control-words.ts';
import { formatInZoneWithUtc, formatWindowInZoneWithUtc } from './time.ts';

/** `window_overlap` details: the command in the way, when the server found it (docs/decisions/006, section 2). */
const OverlapDetailsSchema = z.object({
  conflictingCommandId: z.string(),
  startTime: z.string(),
  endTime: z.string(),
});

/**
 * Words for the product problems a vendor refusal becomes (docs/decisions/006, section 2), from
 * their code and `details`, times on `timeZone` with UTC beside; undefined for the other codes.
 */
function refusalWords(error: ApiError, timeZone: string): string | undefined {
  switch (error.code) {
    case 'capability_out_of_range': {
      const range = CapabilityOutOfRangeDetailsSchema.safeParse(error.details);
      if (!range.success)
        return "A value is outside the device's range. Keep each value inside the range shown beside its field.";
      const { deviceId, property, value, min, max } = range.data;
      const words = POWER_CONTROL_WORDS[property];
      return `${words.name} ${formatPropertyValue(property, value)} is outside the range of ${deviceId} (${formatPropertyValue(property, min)} to ${formatPropertyValue(property, max)}). Choose a value inside it.`;
    }
    case 'control_not_supported': {
      const control = ControlNotSupportedDetailsSchema.safeParse(error.details);
      return control.success
        ? `${control.data.deviceId} does not support ${POWER_CONTROL_WORDS[control.data.property].name.toLowerCase()}. Leave it out, or send the command to another device.`
        : 'A device does not support a control of this command. Leave that control out, or send the command to another device.';
    }
    case 'window_overlap': {
      const overlap = OverlapDetailsSchema.safeParse(error.details);
      if (!overlap.success)
        return 'The window overlaps another command of this device that is waiting or running. Cancel that command first, or choose a window that does not overlap it (windows may touch).';
      const { conflictingCommandId, startTime, endTime } = overlap.data;
      return `The window overlaps command ${conflictingCommandId}, ${formatWindowInZoneWithUtc(startTime, endTime, timeZone)}. Cancel that command first, or choose a window that does not overlap it (windows may touch).`;
    }
    case 'not_cancellable':
      return 'The command has already finished: a completed command cannot be cancelled, and a cancelled one stays cancelled.';
    case 'batch_not_cancellable':
      return 'Every command of this batch has finished, so there is nothing left to cancel.';
    case 'site_bound_elsewhere':
      return 'This site is bound to another partner account: a site belongs to one account at a time. Ask the other account to unbind it, or the vendor’s support.';
    case 'unknown_or_unbound': {
      const unknown = UnknownDevicesDetailsSchema.safeParse(error.details);
      if (unknown.success) return unknownDevicesWords(unknown.data);
      return 'Not found, or its site is not bound to this account. Check the ID; if the site was unbound, bind it again on the sites page.';
    }
    case 'device_rate_limited': {
      const limit = DeviceRateLimitedDetailsSchema.safeParse(error.details);
      const who = limit.success && limit.data.deviceId ? limit.data.deviceId : 'The device';
      const when =
        limit.success && limit.data.retryAt
          ? `It takes the next one at ${formatInZoneWithUtc(limit.data.retryAt, timeZone)}.`
          : 'It takes the next one within a minute.';
      return `${who} has had all the calls the vendor allows for this minute. ${when}`;
    }
    case 'budget_too_tight': {
      const tight = BudgetTooTightDetailsSchema.safeParse(error.details);
      if (!tight.success) return undefined;
      const { deviceIds, lastCallAt, earliestStart, limit, windowSeconds } = tight.data;
      const who =
        deviceIds.length === 1
          ? `${deviceIds[0] ?? 'The device'} has`
          : `${deviceIds.join(', ')} have`;
      // The budget the BFF named; an older BFF named none, and the vendor's own is 2 a minute.
      const budget = deviceBudgetWords(deviceCallBudgetOf({ limit, windowSeconds }));
      return `Nothing was sent: ${who} no call to the vendor left before ${formatInZoneWithUtc(lastCallAt, timeZone)} (${budget}), and a change must reach the vendor ${CHANGE_LEAD_TIME_WORDS} before its window starts. Choose a start at ${formatInZoneWithUtc(earliestStart, timeZone)} or later, or try again in a minute.`;
    }
    case 'device_changed': {
      const since = DeviceCommandChangesSchema.safeParse(error.details);
      if (!since.success || since.data.changes.length === 0) return undefined;
      const { deviceId, changes } = since.data;
      const shown = changes.slice(-3).map((change) => deviceChangeWords(change, timeZone));
      const more = changes.length > 3 ? ` (and ${changes.length - 3} earlier changes)` : '';
      return `Nothing was sent: ${deviceId} changed since you opened it. ${shown.join(' ')}${more} Its commands are shown as they are now: check them, then make your change again if it still applies.`;
    }
    case 'upstream_refused_request':
      return 'The vendor refused what powerdeck sent as not valid. This is a fault of powerdeck, not of your input: report it with the details below.';
    case 'upstream_refused':
      return 'The vendor refused this for a reason powerdeck does not know. Reload the page; if it is refused again, report it with the details below.';
    default:
      return undefined;
  }
}

function deviceChangeWords(change: DeviceCommandChange, timeZone: string): string {
  const window = formatWindowInZoneWithUtc(change.startTime, change.endTime, timeZone);
  const by = change.madeBy ? ` by ${change.madeBy}` : '';
  if (change.kind === 'commandAdded')
    return `Command ${change.commandId} (${window}) was added${by}.`;
  const reason = change.cancelReason ?? 'manuallyCancel';
  if (change.madeBy || reason === 'manuallyCancel')
    return `Command ${change.commandId} (${window}) was cancelled${by || ' by someone else'}.`;
  return `Command ${change.commandId} (${window}) was cancelled: ${CANCELLATION_REASON_WORDS[reason].toLowerCase()}.`;
}

/**
 * A problem in an operator's words: a vendor refusal worded from its code and `details`, never
 * from the vendor's message; other problems keep the server's `detail` (docs/architecture.md, BFF surface).
 *
 * @param timeZone the site's zone (IANA or fixed offset); `UTC` when none.
 */
export function problemWords(error: ApiError, timeZone = 'UTC'): string {
  return refusalWords(error, timeZone) ?? error.detail;
}

function vendorMessage(upstream: unknown): string | undefined {
  if (!upstream || typeof upstream !== 'object') return undefined;
  const body = upstream as Record<string, unknown>;
  const text = body.message ?? body.msg;
  return typeof text === 'string' ? text : undefined;
}

/** A problem's code and the vendor's own message, for support (shown folded). */
export function problemSupportDetail(error: ApiError): string {
  const message = vendorMessage(error.upstream);
  return message
    ? `Code ${error.code} (HTTP ${error.status}). The vendor's message: ${message}`
    : `Code ${error.code} (HTTP ${error.status}).`;
}

/** The command a `window_overlap` names, with its window; undefined when the problem names none. */
export function overlapConflict(error: ApiError): z.infer<typeof OverlapDetailsSchema> | undefined {
  if (error.code !== 'window_overlap') return undefined;
  const overlap = OverlapDetailsSchema.safeParse(error.details);
  return overlap.success ? overlap.data : undefined;
}
