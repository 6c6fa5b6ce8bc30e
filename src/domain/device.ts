import { z } from 'zod';
import { DeviceIdSchema, SiteIdSchema } from './ids.ts';
import {
  POWER_CONTROL_PROPERTIES,
  type PowerControl,
  type PowerControlProperty,
} from './power-control.ts';

/**
 * Inclusive capability range of one control on one device (docs/architecture.md, Upstream contract:
 * Sites).
 */
export const CapabilityRangeSchema = z.object({ min: z.number(), max: z.number() });
export type CapabilityRange = z.infer<typeof CapabilityRangeSchema>;

/** Capabilities of a device: one range per supported control; a missing control is unsupported. */
export const CapabilitiesSchema = z.partialRecord(
  z.enum(POWER_CONTROL_PROPERTIES),
  CapabilityRangeSchema,
);
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

/**
 * A device entry of the authorized site list (docs/architecture.md, Upstream contract: Sites).
 * `online` is our addition beyond the contract, so a batch pre-check can flag offline devices;
 * absent means unknown.
 */
export const DeviceSchema = z.object({
  deviceId: DeviceIdSchema,
  name: z.string(),
  model: z.string(),
  capabilities: CapabilitiesSchema,
  online: z.boolean().optional(),
});
export type Device = z.infer<typeof DeviceSchema>;

/**
 * A site (plant) entry of `GET /sites` (docs/architecture.md, Upstream contract: Sites); `timeZone`
 * is an IANA zone name.
 */
export const SiteSchema = z.object({
  siteId: SiteIdSchema,
  name: z.string(),
  timeZone: z.string(),
  devices: z.array(DeviceSchema),
});
export type Site = z.infer<typeof SiteSchema>;

/** Body of `GET /sites`. */
export const SiteListSchema = z.object({ sites: z.array(SiteSchema) });
export type SiteList = z.infer<typeof SiteListSchema>;

/** Body of `POST /sites` and `DELETE /sites` (spec 2.7). */
export const SiteBindingRequestSchema = z.strictObject({ siteId: SiteIdSchema });
export type SiteBindingRequest = z.infer<typeof SiteBindingRequestSchema>;

/** One reason a power control does not fit a device's capabilities. */
export type CapabilityViolation =
  | { kind: 'unsupported'; property: PowerControlProperty }
  | { kind: 'outOfRange'; property: PowerControlProperty; value: number; range: CapabilityRange };

/**
 * Checks a power control against a device's capability ranges (spec 2.2: a value valid for the
 * schema is still rejected outside the device's range; spec 7: an unsupported control ends the
 * command `notSupported`). Returns every violation, empty when the control fits.
 */
export function checkCapabilities(
  control: PowerControl,
  capabilities: Capabilities,
): CapabilityViolation[] {
  const violations: CapabilityViolation[] = [];
  for (const property of POWER_CONTROL_PROPERTIES) {
    const value = control[property];
    if (value === undefined) continue;
    const range = capabilities[property];
    if (!range) violations.push({ kind: 'unsupported', property });
    else if (value < range.min || value > range.max)
      violations.push({ kind: 'outOfRange', property, value, range });
  }
  return violations;
}

/** Words for a violation, naming the property, the value and the allowed range. */
export function describeViolation(violation: CapabilityViolation): string {
  if (violation.kind === 'unsupported')
    return `${violation.property} is not supported by this device`;
  const { property, value, range } = violation;
  return `${property} ${value} is outside the device's range ${range.min} to ${range.max}`;
}
