/** A power unit a chart's axis reads in, and what a value in W is divided by for it. */
export interface PowerScale {
  unit: 'W' | 'kW' | 'MW';
  divisor: number;
}

/**
 * The unit an axis of these powers (W) reads best in: MW from 1 MW, kW from 1 kW, else W, by the
 * largest magnitude, so a fleet event reads in MW and one battery in kW.
 */
export function powerScaleOf(valuesW: readonly number[]): PowerScale {
  const largest = valuesW.reduce((max, value) => Math.max(max, Math.abs(value)), 0);
  if (largest >= 1_000_000) return { unit: 'MW', divisor: 1_000_000 };
  if (largest >= 1000) return { unit: 'kW', divisor: 1000 };
  return { unit: 'W', divisor: 1 };
}

/** `4.8 kW`: W in the scale's unit, at most two decimals. */
export function formatScaledPower(watts: number, scale: PowerScale): string {
  return `${Number((watts / scale.divisor).toFixed(2))} ${scale.unit}`;
}

/** Battery power in the scale's unit as discharge or charge, not a sign: `4.8 kW discharge`. */
export function formatScaledBatteryPower(watts: number, scale: PowerScale): string {
  const magnitude = formatScaledPower(Math.abs(watts), scale);
  if (Number((watts / scale.divisor).toFixed(2)) === 0) return `0 ${scale.unit}`;
  return `${magnitude} ${watts < 0 ? 'charge' : 'discharge'}`;
}
