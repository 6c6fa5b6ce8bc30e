import { z } from 'zod';

/** In the vendor's order (docs/upstream.md, Commands). */
export const POWER_CONTROL_PROPERTIES = [
  'targetBatteryPowerW',
  'chargeCutoffSocPercent',
  'dischargeCutoffSocPercent',
  'siteImportLimitW',
  'siteExportLimitW',
] as const;

export type PowerControlProperty = (typeof POWER_CONTROL_PROPERTIES)[number];

/**
 * The vendor's published bounds (docs/upstream.md, Commands); it bounds no battery power, so ours
 * is wide. A device's own range is checked apart (`checkCapabilities`, device.ts).
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

export interface PowerControlWords {
  /** With the unit: the accessible name e2e tests use. */
  label: string;
  /** For the start of a sentence. */
  name: string;
  inSentence: string;
  unit: 'W' | '%';
}

/** The one home of each control's product name and unit, so operators never meet field names. */
export const POWER_CONTROL_WORDS: Record<PowerControlProperty, PowerControlWords> = {
  targetBatteryPowerW: {
    label: 'Target battery power (W)',
    name: 'Target battery power',
    inSentence: 'target battery power',
    unit: 'W',
  },
  chargeCutoffSocPercent: {
    label: 'Charge cut-off SoC (%)',
    name: 'Charge cut-off SoC',
    inSentence: 'charge cut-off SoC',
    unit: '%',
  },
  dischargeCutoffSocPercent: {
    label: 'Discharge cut-off SoC (%)',
    name: 'Discharge cut-off SoC',
    inSentence: 'discharge cut-off SoC',
    unit: '%',
  },
  siteImportLimitW: {
    label: 'Site import limit (W)',
    name: 'Site import limit',
    inSentence: 'site import limit',
    unit: 'W',
  },
  siteExportLimitW: {
    label: 'Site export limit (W)',
    name: 'Site export limit',
    inSentence: 'site export limit',
    unit: 'W',
  },
};

/** Watts as typed, since the field takes them so. */
export function controlRangeWords(
  property: PowerControlProperty,
  range: { min: number; max: number },
): string {
  return POWER_CONTROL_WORDS[property].unit === '%'
    ? `between ${range.min}% and ${range.max}%`
    : `between ${range.min} and ${range.max} W`;
}

/** E.g. `Target battery power must be a whole number of W`. */
export function wholeNumberWords(property: PowerControlProperty): string {
  const { name, unit } = POWER_CONTROL_WORDS[property];
  return `${name} must be a whole number of ${unit}`;
}

export const CONTROL_TEXT_HINT: Record<PowerControlWords['unit'], string> = {
  W: 'Type a power in W or kW, like 5000 or 5 kW',
  '%': 'Type a percentage, like 80 or 80 %',
};

/** docs/upstream.md, Commands. */
export const NO_CONTROL_SET_WORDS =
  'Set at least one power control: target battery power, a SoC cut-off or a site limit';

/** This module's refusals name the control already: a reader need not prefix the field's path. */
export function namesItsControl(message: string): boolean {
  return (
    message === NO_CONTROL_SET_WORDS ||
    POWER_CONTROL_PROPERTIES.some((p) => message.startsWith(`${POWER_CONTROL_WORDS[p].name} `))
  );
}

const POWER_TEXT = /^([+-]?)(\d+(?:\.\d+)?|\.\d+)\s*(w|kw)?$/i;
const PERCENT_TEXT = /^([+-]?)(\d+(?:\.\d+)?|\.\d+)\s*%?$/;

/**
 * `5000`, `5 kW`, `-2.5kw` (typographic minus too), `80 %`; anything else is refused with an
 * example, never read as another value (a number input reads `5 kW` as 5 W). A whole number of
 * the unit (docs/upstream.md, Commands); schema bounds are checked by `PowerControlSchema`.
 * @returns `{ value }` in W or %, or `{ problem }` in operator words.
 */
export function parsePowerControlValue(
  property: PowerControlProperty,
  text: string,
): { value: number } | { problem: string } {
  const { unit } = POWER_CONTROL_WORDS[property];
  const typed = text.trim().replace(/\u2212/g, '-');
  const match = (unit === 'W' ? POWER_TEXT : PERCENT_TEXT).exec(typed);
  if (!match) return { problem: CONTROL_TEXT_HINT[unit] };
  const [, sign = '', digits = '', suffix = ''] = match;
  const scale = suffix.toLowerCase() === 'kw' ? 1000 : 1;
  // 1.001 kW times 1000 is 1000.9999999999999 in floating point: a whole number of W all the same.
  const value = Number(`${sign}${digits}`) * scale;
  const rounded = Math.round(value);
  if (Math.abs(value - rounded) > 1e-9) return { problem: wholeNumberWords(property) };
  return { value: rounded === 0 ? 0 : rounded };
}

const bounded = (property: PowerControlProperty) => {
  const { min, max } = POWER_CONTROL_SCHEMA_BOUNDS[property];
  const { name, unit } = POWER_CONTROL_WORDS[property];
  const outside = `${name} must be ${controlRangeWords(property, { min, max })}`;
  return z
    .number({ error: `${name} must be a number of ${unit}` })
    .int({ error: wholeNumberWords(property) })
    .min(min, { error: outside })
    .max(max, { error: outside });
};

/**
 * docs/upstream.md, Commands: properties left out keep the device's settings;
 * `targetBatteryPowerW` positive discharges. Messages are operator words.
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
    error: NO_CONTROL_SET_WORDS,
  });

export type PowerControl = z.infer<typeof PowerControlSchema>;

/** In the vendor's order. */
export function setProperties(control: PowerControl): PowerControlProperty[] {
  return POWER_CONTROL_PROPERTIES.filter((p) => control[p] !== undefined);
}
