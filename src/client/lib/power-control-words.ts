import {
  POWER_CONTROL_PROPERTIES,
  POWER_CONTROL_WORDS,
  type PowerControl,
  type PowerControlProperty,
} from '#domain/power-control.ts';

/** How each power-control property is named on screen: its one home is the domain's. */
export { POWER_CONTROL_WORDS };

/** `800 W`, `-3 kW`, `2.5 kW`: watts in the unit an operator reads at a glance. */
export function formatPowerW(watts: number): string {
  if (Math.abs(watts) < 1000) return `${watts} W`;
  return `${Number((watts / 1000).toFixed(2))} kW`;
}

/** Battery power as charge or discharge, not a sign (docs/upstream.md, Commands): `2 kW charge`, `0 W`. */
export function formatBatteryPowerW(watts: number): string {
  if (watts === 0) return formatPowerW(0);
  return `${formatPowerW(Math.abs(watts))} ${watts < 0 ? 'charge' : 'discharge'}`;
}

/** A value with its unit: `-3 kW`, `90%`. */
export function formatPropertyValue(property: PowerControlProperty, value: number): string {
  return POWER_CONTROL_WORDS[property].unit === '%' ? `${value}%` : formatPowerW(value);
}

/** A value in words with its unit, battery power as charge/discharge: `2 kW charge`, `90%`. */
export function formatPropertyValueInWords(property: PowerControlProperty, value: number): string {
  return property === 'targetBatteryPowerW'
    ? formatBatteryPowerW(value)
    : formatPropertyValue(property, value);
}

const SHORT_FORM: Record<PowerControlProperty, (value: number) => string> = {
  targetBatteryPowerW: (w) => formatBatteryPowerW(w),
  chargeCutoffSocPercent: (p) => `stop charging at ${p}%`,
  dischargeCutoffSocPercent: (p) => `stop discharging at ${p}%`,
  siteImportLimitW: (w) => `import limit ${formatPowerW(w)}`,
  siteExportLimitW: (w) => `export limit ${formatPowerW(w)}`,
};

/** A power control in short form, in docs/upstream.md's order: `3 kW charge, stop charging at 90%`. */
export function describePowerControl(control: PowerControl): string {
  return POWER_CONTROL_PROPERTIES.flatMap((property) => {
    const value = control[property];
    return value === undefined ? [] : [SHORT_FORM[property](value)];
  }).join(', ');
}

const THREE_FIGURES = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

/** A magnitude to three figures in the largest of `units` (each 1000 times the last) it reaches once rounded. */
function figureIn<U extends string>(magnitude: number, units: readonly U[]) {
  let value = Math.abs(magnitude);
  let index = 0;
  while (index < units.length - 1 && Number(value.toPrecision(3)) >= 1000) {
    value /= 1000;
    index += 1;
  }
  return { figure: THREE_FIGURES.format(value), unit: units[index] as U };
}

/**
 * Measured power's size as a big number shows it, W in: `{ figure: '3.42', unit: 'MW' }`; W below
 * 1 kW, kW below 1 MW, MW above, three figures. The sign is the caller's to say in words.
 */
export const powerFigure = (watts: number) => figureIn(watts, ['W', 'kW', 'MW'] as const);

/** `850 W`, `12.5 kW`, `3.42 MW`: {@link powerFigure} as one string. */
export function formatMeasuredPowerW(watts: number): string {
  const { figure, unit } = powerFigure(watts);
  return `${figure} ${unit}`;
}

/** Stored energy, kWh in: `{ figure: '61.2', unit: 'MWh' }`; kWh below 1 MWh, MWh above. */
export const energyFigure = (kwh: number) => figureIn(kwh, ['kWh', 'MWh'] as const);
