import { z } from 'zod';
import { DeviceIdSchema } from './ids.ts';
import { POWER_CONTROL_PROPERTIES } from './power-control.ts';

/** Entries written before the vendor's contract may carry the old upstream's codes; read alike. */
export const ErrorSummarySchema = z.object({
  code: z.string(),
  message: z.string(),
});
export type ErrorSummary = z.infer<typeof ErrorSummarySchema>;

/** RFC 6749 section 5.2. */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const;

export const OAuthErrorBodySchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
});
export type OAuthErrorBody = z.infer<typeof OAuthErrorBodySchema>;

/**
 * RFC 9457 (docs/architecture.md, BFF surface): `code` a stable product code (problems.ts),
 * `detail` what the operator can do next, `upstream` the vendor's body, for support.
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

/** The BFF works the range out from the device's capabilities: the vendor does not say. */
export const CapabilityOutOfRangeDetailsSchema = z.object({
  deviceId: DeviceIdSchema,
  property: z.enum(POWER_CONTROL_PROPERTIES),
  value: z.number(),
  min: z.number(),
  max: z.number(),
});
export type CapabilityOutOfRangeDetails = z.infer<typeof CapabilityOutOfRangeDetailsSchema>;

export const ControlNotSupportedDetailsSchema = z.object({
  deviceId: DeviceIdSchema,
  property: z.enum(POWER_CONTROL_PROPERTIES),
});
export type ControlNotSupportedDetails = z.infer<typeof ControlNotSupportedDetailsSchema>;

/** Read from the vendor's message, which names them all (docs/upstream.md, Batches). */
export const UnknownDevicesDetailsSchema = z.object({
  deviceIds: z.array(DeviceIdSchema).min(1),
});
export type UnknownDevicesDetails = z.infer<typeof UnknownDevicesDetailsSchema>;

/** Says nothing was sent and names each device to remove. */
export function unknownDevicesWords({ deviceIds }: UnknownDevicesDetails): string {
  const one = deviceIds.length === 1;
  const named = one ? (deviceIds[0] ?? '') : deviceIds.join(', ');
  return `Nothing was sent: ${named} ${one ? 'is' : 'are'} not found, or ${one ? 'its site is' : 'their sites are'} not bound to this account, and the vendor refuses the whole batch for ${one ? 'it' : 'them'}. Remove ${one ? 'it' : 'them'} from the batch, or bind ${one ? 'its site' : 'their sites'} first.`;
}

/** ISO 8601 UTC. */
export const DeviceRateLimitedDetailsSchema = z.object({
  deviceId: DeviceIdSchema.optional(),
  retryAt: z.iso.datetime().optional(),
});
export type DeviceRateLimitedDetails = z.infer<typeof DeviceRateLimitedDetailsSchema>;

/** ISO 8601 UTC; earliest start = last call plus the lead time (lead-time.ts). */
export const BudgetTooTightDetailsSchema = z.object({
  deviceIds: z.array(DeviceIdSchema),
  lastCallAt: z.iso.datetime(),
  earliestStart: z.iso.datetime(),
  limit: z.int().min(1).optional(),
  windowSeconds: z.int().min(1).optional(),
});
export type BudgetTooTightDetails = z.infer<typeof BudgetTooTightDetailsSchema>;

/** `ifLater=refuse` (decision record 007, section 2); ISO 8601 UTC. Nothing was sent or queued. */
export const ChangeWouldWaitDetailsSchema = z.object({
  deviceIds: z.array(DeviceIdSchema),
  goesAt: z.iso.datetime(),
});
export type ChangeWouldWaitDetails = z.infer<typeof ChangeWouldWaitDetailsSchema>;
