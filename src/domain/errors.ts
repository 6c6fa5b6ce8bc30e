import { z } from 'zod';
import { DeviceIdSchema } from './ids.ts';
import { POWER_CONTROL_PROPERTIES } from './power-control.ts';

/**
 * What went wrong, in short: a product problem code and its words. A ledger outcome and a batch
 * cancel's result record one (docs/architecture.md, Ledger). Entries written before the vendor's
 * contract was adopted may carry the old upstream's codes here; they read the same way.
 */
export const ErrorSummarySchema = z.object({
  code: z.string(),
  message: z.string(),
});
export type ErrorSummary = z.infer<typeof ErrorSummarySchema>;

/** RFC 6749 section 5.2 error codes of the token endpoint. */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const;

/** RFC 6749 section 5.2 error body. */
export const OAuthErrorBodySchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
});
export type OAuthErrorBody = z.infer<typeof OAuthErrorBodySchema>;

/**
 * RFC 9457 problem details as the BFF answers them (docs/architecture.md, BFF surface). `code` is
 * a stable product code (`problems.ts`); `detail` says what the operator can do next; `details`
 * holds the structured facts of some codes (see {@link CapabilityOutOfRangeDetailsSchema},
 * {@link DeviceRateLimitedDetailsSchema}); `upstream` carries the vendor's own error body, for
 * support, when there was one.
 */
export const ProblemSchema = z.object({
  type: z.string().optional(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  code: z.string(),
  details: z.unknown().optional(),
  upstream: z.unknown().optional(),
});
export type Problem = z.infer<typeof ProblemSchema>;

/**
 * `details` of a 422 `capability_out_of_range`: the first value outside the device's range, and
 * that range (the BFF works it out from the device's capabilities: the vendor does not say).
 */
export const CapabilityOutOfRangeDetailsSchema = z.object({
  deviceId: DeviceIdSchema,
  property: z.enum(POWER_CONTROL_PROPERTIES),
  value: z.number(),
  min: z.number(),
  max: z.number(),
});
export type CapabilityOutOfRangeDetails = z.infer<typeof CapabilityOutOfRangeDetailsSchema>;

/** `details` of a 422 `control_not_supported`: the control the device does not support. */
export const ControlNotSupportedDetailsSchema = z.object({
  deviceId: DeviceIdSchema,
  property: z.enum(POWER_CONTROL_PROPERTIES),
});
export type ControlNotSupportedDetails = z.infer<typeof ControlNotSupportedDetailsSchema>;

/**
 * `details` of a 404 `unknown_or_unbound` for a batch: the devices the vendor did not find or
 * found in no site bound to the account (docs/upstream.md, Batches: it refuses the whole batch
 * and names them all). The adapter reads them from the vendor's message.
 */
export const UnknownDevicesDetailsSchema = z.object({
  deviceIds: z.array(DeviceIdSchema).min(1),
});
export type UnknownDevicesDetails = z.infer<typeof UnknownDevicesDetailsSchema>;

/**
 * Words for a batch refused for devices not found or not bound (docs/upstream.md, Batches):
 * nothing was sent, and which devices to remove, each named.
 */
export function unknownDevicesWords({ deviceIds }: UnknownDevicesDetails): string {
  const one = deviceIds.length === 1;
  const named = one ? (deviceIds[0] ?? '') : deviceIds.join(', ');
  return `Nothing was sent: ${named} ${one ? 'is' : 'are'} not found, or ${one ? 'its site is' : 'their sites are'} not bound to this account, and the vendor refuses the whole batch for ${one ? 'it' : 'them'}. Remove ${one ? 'it' : 'them'} from the batch, or bind ${one ? 'its site' : 'their sites'} first.`;
}

/**
 * `details` of a 429 `device_rate_limited`: the device whose calls are used up (when the vendor
 * named it) and from when it takes the next one, ISO 8601 UTC.
 */
export const DeviceRateLimitedDetailsSchema = z.object({
  deviceId: DeviceIdSchema.optional(),
  retryAt: z.iso.datetime().optional(),
});
export type DeviceRateLimitedDetails = z.infer<typeof DeviceRateLimitedDetailsSchema>;

/**
 * `details` of a 409 `budget_too_tight`: the devices whose budget of upstream calls cannot carry
 * the change in time, when its last call could go, and the earliest start of the new window the
 * budget allows (that moment plus the lead time, src/domain/lead-time.ts), ISO 8601 UTC; and the
 * budget in force (`limit` calls per `windowSeconds`, src/domain/device-budget.ts), which the
 * region's configuration sets (the vendor's is 2 per 60).
 */
export const BudgetTooTightDetailsSchema = z.object({
  deviceIds: z.array(DeviceIdSchema),
  lastCallAt: z.iso.datetime(),
  earliestStart: z.iso.datetime(),
  limit: z.int().min(1).optional(),
  windowSeconds: z.int().min(1).optional(),
});
export type BudgetTooTightDetails = z.infer<typeof BudgetTooTightDetailsSchema>;

/**
 * Details of a 409 `change_would_wait` (docs/decisions/007-device-call-budget.md, section 2): a
 * change asked to go only at once (`ifLater=refuse`) that the device's budget would queue; when
 * its first call would go, ISO 8601 UTC. Nothing was sent or queued.
 */
export const ChangeWouldWaitDetailsSchema = z.object({
  deviceIds: z.array(DeviceIdSchema),
  goesAt: z.iso.datetime(),
});
export type ChangeWouldWaitDetails = z.infer<typeof ChangeWouldWaitDetailsSchema>;
