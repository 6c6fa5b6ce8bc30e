import type { DeviceCommandVerdict } from '#domain/verdict.ts';

/** `3.9 kWh`, `0.25 kWh`, `12.5 kWh`: Wh as kWh without sign, two decimals below 10 kWh, one above. */
export function formatEnergyKwh(wh: number): string {
  const kwh = Math.abs(wh) / 1000;
  return `${Number(kwh.toFixed(kwh < 10 ? 2 : 1))} kWh`;
}

/** Energy signed like battery power (docs/verification.md) as a direction: `discharged`, `charged`. */
const direction = (wh: number) => (wh < 0 ? 'charged' : 'discharged');

/**
 * A verdict's delivered against commanded energy in words (signed like battery power, positive
 * discharges): `3.9 kWh discharged of 4 kWh commanded (98%)`; `0.5 kWh charged; 4 kWh discharge
 * commanded` when the battery went the other way; `limits only` when no target power was set.
 */
export function energyWords(
  result: Pick<DeviceCommandVerdict, 'commandedEnergyWh' | 'deliveredEnergyWh'>,
): string {
  const { commandedEnergyWh: commanded, deliveredEnergyWh: delivered } = result;
  if (commanded === null)
    return delivered === null
      ? 'Nothing measured; limits only'
      : `${formatEnergyKwh(delivered)} ${direction(delivered)}; limits only`;
  const commandedWords = `${formatEnergyKwh(commanded)} ${commanded < 0 ? 'charge' : 'discharge'} commanded`;
  if (delivered === null) return `Nothing measured of ${commandedWords}`;
  if (commanded !== 0 && Math.sign(delivered) === Math.sign(commanded)) {
    const share = Math.round((delivered / commanded) * 100);
    return `${formatEnergyKwh(delivered)} ${direction(delivered)} of ${formatEnergyKwh(commanded)} commanded (${share}%)`;
  }
  return `${formatEnergyKwh(delivered)} ${direction(delivered)}; ${commandedWords}`;
}

/** The share of the window measured: `98% measured (118 of 120 samples)`. */
export function coverageWords(result: Pick<DeviceCommandVerdict, 'coverage' | 'samples'>): string {
  const { expected, present } = result.samples;
  const samples = expected === 1 ? '1 sample' : `${expected} samples`;
  return `${Math.round(result.coverage * 100)}% measured (${present} of ${samples})`;
}
