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

/** How a power-control property is named on screen and in refusals. */
export interface PowerControlWords {
  /** Label of the form field, with the unit (the accessible name e2e tests use). */
  label: string;
  /** Name without the unit, for the start of a sentence. */
  name: string;
  /** Name inside a sentence: `target battery power`, `charge cut-off SoC`. */
  inSentence: string;
  unit: 'W' | '%';
}

/**
 * The one home of each power-control property's product name and unit (docs/upstream.md,
 * Commands): form labels, refusals of the schema, the capability check and the plan check all
 * read it, so an operator never meets the API's field names.
 */
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

/**
 * `between 5% and 100%`, `between -5000 and 5000 W`: a range of a control as typed, with its
 * unit (watts as typed, since the field takes them so).
 */
export function controlRangeWords(
  property: PowerControlProperty,
  range: { min: number; max: number },
): string {
  return POWER_CONTROL_WORDS[property].unit === '%'
    ? `between ${range.min}% and ${range.max}%`
    : `between ${range.min} and ${range.max} W`;
}

/** `Target battery power must be a whole number of W`. */
export function wholeNumberWords(property: PowerControlProperty): string {
  const { name, unit } = POWER_CONTROL_WORDS[property];
  return `${name} must be a whole number of ${unit}`;
}

/** What an operator types into a control that cannot be read, with an example of what can. */
export const CONTROL_TEXT_HINT: Record<PowerControlWords['unit'], string> = {
  W: 'Type a power in W or kW, like 5000 or 5 kW',
  '%': 'Type a percentage, like 80 or 80 %',
};

/** The message of a power control that sets nothing (docs/upstream.md, Commands). */
export const NO_CONTROL_SET_WORDS =
  'Set at least one power control: target battery power, a SoC cut-off or a site limit';

/**
 * True when `message` is one of this module's refusals, which name the control in the product's
 * words already (`Charge cut-off SoC must be…`, {@link NO_CONTROL_SET_WORDS}): a reader need not
 * prefix the field's path.
 */
export function namesItsControl(message: string): boolean {
  return (
    message === NO_CONTROL_SET_WORDS ||
    POWER_CONTROL_PROPERTIES.some((p) => message.startsWith(`${POWER_CONTROL_WORDS[p].name} `))
  );
}

const POWER_TEXT = /^([+-]?)(\d+(?:\.\d+)?|\.\d+)\s*(w|kw)?$/i;
const PERCENT_TEXT = /^([+-]?)(\d+(?:\.\d+)?|\.\d+)\s*%?$/;

/**
 * Reads a control as an operator types it, in a form field or a plan's cell: a power in W or kW
 * (`5000`, `5000 W`, `5 kW`, `-2.5kw`; a typographic minus counts), a SoC in percent (`80`,
 * `80 %`). Anything else is refused with words and an example, never read as some other value
 * (a number input would drop `kW` and read `5 kW` as 5 W). The value must be a whole number of
 * the control's unit (docs/upstream.md, Commands); the schema bounds are checked elsewhere
 * (`PowerControlSchema`).
 *
 * @returns `{ value }` in the control's unit (W or %), or `{ problem }` in operator words.
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
 * Power control of a device command (docs/upstream.md, Commands): at least one property; properties left out keep
 * the device's existing settings. `targetBatteryPowerW` is positive to discharge and negative to
 * charge; SoC cut-offs are percent; site limits are watts. Unknown properties are refused. The
 * messages are operator words (the BFF's `invalid_request` and the forms show them).
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

/** The properties a power control actually sets, in the vendor's order. */
export function setProperties(control: PowerControl): PowerControlProperty[] {
  return POWER_CONTROL_PROPERTIES.filter((p) => control[p] !== undefined);
}
