import { z } from 'zod';

/** The five power-control properties, in the vendor's order (docs/upstream.md, Commands). */
export const POWER_CONTROL_PROPERTIES = [
  'targetBatteryPowerW',
  'chargeCutoffSocPercent',
  'dischargeCutoffSocPercent',
  'siteImportLimitW',
  'siteExportLimitW',
] as const;

export type PowerControlProperty = (typeof POWER_CONTROL_PROPERTIES)[number];

/**
 * Schema bounds of each control value: the vendor's published schema (docs/upstream.md, Commands):
 * SoC cut-offs 5 to 100 %, site limits 0 to 65,535 W. The vendor bounds no battery power; ours
 * is wide enough for any battery it serves. The device's own capability range is checked
 * separately (`checkCapabilities` in device.ts); a value inside these bounds may still be refused by the
 * device.
 */
export const POWER_CONTROL_SCHEMA_BOUNDS: Record<
  PowerControlProperty,
  { min: number; max: number }
> = {
  targetBatteryPowerW: { min: -1_000_000, max: 1_000_000 },
  chargeCutoffSocPercent: { min: 5, max: 100 },
  dischargeCutoffSocPercent: { min: 5, max: 100 },
  siteImportLimitW: { min: 0, max: 65_535 },
  siteExportLimitW: { min: 0, max: 65_535 },
};

const bounded = (property: PowerControlProperty) => {
  const { min, max } = POWER_CONTROL_SCHEMA_BOUNDS[property];
  return z
    .number({ error: `${property} must be a number` })
    .int({ error: `${property} must be a whole number` })
    .min(min, { error: `${property} must be at least ${min}` })
    .max(max, { error: `${property} must be at most ${max}` });
};

/**
 * Power control of a device command (docs/upstream.md, Commands): at least one property; properties left out keep
 * the device's existing settings. `targetBatteryPowerW` is positive to discharge and negative to
 * charge; SoC cut-offs are percent; site limits are watts. Unknown properties are refused.
 */
export const PowerControlSchema = z
  .strictObject({
    targetBatteryPowerW: bounded('targetBatteryPowerW').optional(),
    chargeCutoffSocPercent: bounded('chargeCutoffSocPercent').optional(),
    dischargeCutoffSocPercent: bounded('dischargeCutoffSocPercent').optional(),
    siteImportLimitW: bounded('siteImportLimitW').optional(),
    siteExportLimitW: bounded('siteExportLimitW').optional(),
  })
  .refine((control) => POWER_CONTROL_PROPERTIES.some((p) => control[p] !== undefined), {
    error: 'powerControl must contain at least one control property',
  });

export type PowerControl = z.infer<typeof PowerControlSchema>;

/** The properties a power control actually sets, in the vendor's order. */
export function setProperties(control: PowerControl): PowerControlProperty[] {
  return POWER_CONTROL_PROPERTIES.filter((p) => control[p] !== undefined);
}
