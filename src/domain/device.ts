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

/** Inclusive, in the control's unit (W or %), from the vendor's device data (docs/upstream.md). */
export const CapabilityRangeSchema = z.object({ min: z.number(), max: z.number() });
export type CapabilityRange = z.infer<typeof CapabilityRangeSchema>;

/** A missing control is unsupported. */
export const CapabilitiesSchema = z.partialRecord(
  z.enum(POWER_CONTROL_PROPERTIES),
  CapabilityRangeSchema,
);
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

/** `online` and `faulted` as the vendor last said (absent: unknown). */
export const DeviceSchema = z.object({
  deviceId: DeviceIdSchema,
  name: z.string(),
  model: z.string(),
  capabilities: CapabilitiesSchema,
  /** The battery's capacity, kWh, as the vendor lists it; absent when it does not. */
  batteryCapacityKwh: z.number().nonnegative().optional(),
  online: z.boolean().optional(),
  faulted: z.boolean().optional(),
});
export type Device = z.infer<typeof DeviceSchema>;

/** `timeZone` an IANA name or a fixed offset (site-clock.ts); `countryCode` ISO 3166-1 alpha-2. */
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

/** Body of `GET /api/sites`, in the vendor's order. */
export const SiteListSchema = z.object({ sites: z.array(SiteSchema) });
export type SiteList = z.infer<typeof SiteListSchema>;

/** Body of `POST /api/sites`: the Plant ID the vendor's portal shows. */
export const SiteBindingRequestSchema = z.strictObject({ siteId: SiteIdSchema });
export type SiteBindingRequest = z.infer<typeof SiteBindingRequestSchema>;

export type CapabilityViolation =
  | { kind: 'unsupported'; property: PowerControlProperty }
  | { kind: 'outOfRange'; property: PowerControlProperty; value: number; range: CapabilityRange };

/**
 * docs/upstream.md, Commands: a value valid for the schema is still refused outside the device's
 * range; a control the device lacks ends `notSupported`. Empty when it fits.
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

/** In the product's names (`POWER_CONTROL_WORDS`), ranges with their unit. */
export function describeViolation(violation: CapabilityViolation): string {
  const words = POWER_CONTROL_WORDS[violation.property];
  if (violation.kind === 'unsupported') return `This device does not support a ${words.inSentence}`;
  const { property, value, range } = violation;
  const asked = words.unit === '%' ? `${value}%` : `${value} W`;
  return `${words.name} must be ${controlRangeWords(property, range)} on this device (${asked} asked)`;
}

/**
 * docs/decisions/006, section 2. Every control but battery power gets its schema bounds, since the
 * vendor publishes no list of supported ones.
 * @param ratings the most the battery charges and discharges, W (positive).
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
