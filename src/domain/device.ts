import { z } from 'zod';
import { DeviceIdSchema, SiteIdSchema } from './ids.ts';
import { SiteClockSchema } from './site-clock.ts';
import {
  controlRangeWords,
  POWER_CONTROL_PROPERTIES,
  POWER_CONTROL_SCHEMA_BOUNDS,
  POWER_CONTROL_WORDS,
  type PowerControl,
  type PowerControlProperty,
} from './power-control.ts';

/**
 * Inclusive capability range of one control on one device, in the control's unit (W or %). The
 * BFF works it out from the vendor's device data (docs/upstream.md, Sites).
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
 * A device of a bound site. `online` and `faulted` are what the vendor last said (absent:
 * unknown); a batch pre-check flags offline and faulted devices.
 */
export const DeviceSchema = z.object({
  deviceId: DeviceIdSchema,
  name: z.string(),
  model: z.string(),
  capabilities: CapabilitiesSchema,
  online: z.boolean().optional(),
  faulted: z.boolean().optional(),
});
export type Device = z.infer<typeof DeviceSchema>;

/**
 * A site (plant) bound to the signed-in account. `timeZone` is the zone every time of the site
 * is shown on: an IANA name, or a fixed offset such as `+10:00`; `clock` says where it came from
 * (site-clock.ts). `countryCode` is ISO 3166-1 alpha-2.
 */
export const SiteSchema = z.object({
  siteId: SiteIdSchema,
  name: z.string(),
  countryCode: z.string().optional(),
  timeZone: z.string(),
  clock: SiteClockSchema,
  online: z.boolean().optional(),
  faulted: z.boolean().optional(),
  devices: z.array(DeviceSchema),
});
export type Site = z.infer<typeof SiteSchema>;

/** Body of `GET /api/sites`: every bound site, in the order the vendor lists them. */
export const SiteListSchema = z.object({ sites: z.array(SiteSchema) });
export type SiteList = z.infer<typeof SiteListSchema>;

/** Body of `POST /api/sites`: the site to bind, by the Plant ID the vendor's portal shows. */
export const SiteBindingRequestSchema = z.strictObject({ siteId: SiteIdSchema });
export type SiteBindingRequest = z.infer<typeof SiteBindingRequestSchema>;

/** One reason a power control does not fit a device's capabilities. */
export type CapabilityViolation =
  | { kind: 'unsupported'; property: PowerControlProperty }
  | { kind: 'outOfRange'; property: PowerControlProperty; value: number; range: CapabilityRange };

/**
 * Checks a power control against a device's capability ranges (docs/upstream.md, Commands: a
 * value valid for the schema is still refused outside the device's range, and a control the
 * device lacks ends the command `notSupported`). Returns every violation, empty when it fits.
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

/**
 * Words for a violation in the product's names (`POWER_CONTROL_WORDS`): the control, the device's
 * range with its unit and the value asked, or the control the device does not support.
 */
export function describeViolation(violation: CapabilityViolation): string {
  const words = POWER_CONTROL_WORDS[violation.property];
  if (violation.kind === 'unsupported') return `This device does not support a ${words.inSentence}`;
  const { property, value, range } = violation;
  const asked = words.unit === '%' ? `${value}%` : `${value} W`;
  return `${words.name} must be ${controlRangeWords(property, range)} on this device (${asked} asked)`;
}

/**
 * A device's capability ranges from its power ratings (docs/decisions/006, section 2):
 * `targetBatteryPowerW` from minus the most it charges to the most it discharges (absent when
 * the device has no battery ratings), and every other control at its schema bounds, since the
 * vendor publishes no list of supported controls (a control a device lacks is learnt only when a
 * command ends `notSupported`).
 *
 * @param ratings the most the battery charges and discharges, W (positive numbers).
 */
export function capabilitiesOf(ratings: {
  maxChargePowerW?: number | undefined;
  maxDischargePowerW?: number | undefined;
}): Capabilities {
  const capabilities: Capabilities = {};
  const { maxChargePowerW, maxDischargePowerW } = ratings;
  if (maxChargePowerW !== undefined || maxDischargePowerW !== undefined)
    capabilities.targetBatteryPowerW = {
      min: maxChargePowerW ? -Math.round(Math.abs(maxChargePowerW)) : 0,
      max: maxDischargePowerW ? Math.round(Math.abs(maxDischargePowerW)) : 0,
    };
  for (const property of POWER_CONTROL_PROPERTIES)
    if (property !== 'targetBatteryPowerW')
      capabilities[property] = { ...POWER_CONTROL_SCHEMA_BOUNDS[property] };
  return capabilities;
}
