import { deliveredEnergyWhOf, type EventPowerPoint } from '#domain/fleet-power.ts';
import { energyWh } from '#domain/telemetry.ts';
import { formatWindowInZone, zoneLabel } from '#client/lib/time.ts';
import { formatScaledBatteryPower, type PowerScale } from './power-scale.ts';

/** The span of an event's curve, ms: from its first step to the end of its last. */
export function eventRangeOf(
  points: readonly EventPowerPoint[],
  stepMs: number,
): { startMs: number; endMs: number } {
  const first = points[0]?.atMs ?? 0;
  return { startMs: first, endMs: (points.at(-1)?.atMs ?? first) + stepMs };
}

/** `4.2 MWh`, `850 kWh`: energy in the scale's unit with h, at most two decimals. */
export function formatScaledEnergy(wh: number, scale: PowerScale): string {
  return `${Number((Math.abs(wh) / scale.divisor).toFixed(2))} ${scale.unit}h`;
}

/**
 * The event's chart in sentences (its text alternative): the window on the site's clock, the
 * commanded and delivered energy with the share, the lowest delivered step, and the fewest
 * devices measured in a step (docs/verification.md, Fleet figures).
 */
export function eventPowerSummary(
  points: readonly EventPowerPoint[],
  stepMs: number,
  timeZone: string,
  scale: PowerScale,
): string {
  if (points.length === 0) return 'No step of the event to chart.';
  const { startMs, endMs } = eventRangeOf(points, stepMs);
  const span = formatWindowInZone(startMs, endMs, timeZone).replace(/–| – /, ' to ');
  const commandedWh = points.reduce((sum, point) => sum + energyWh(point.commandedW, stepMs), 0);
  const deliveredWh = deliveredEnergyWhOf(points, stepMs);
  const share =
    commandedWh !== 0 && Math.sign(commandedWh) === Math.sign(deliveredWh)
      ? ` (${Math.round((deliveredWh / commandedWh) * 100)}%)`
      : '';
  const peak = Math.max(...points.map((point) => Math.abs(point.commandedW)));
  const peakPoint = points.find((point) => Math.abs(point.commandedW) === peak);
  const fewest = Math.min(...points.map((point) => point.measuredDevices));
  return (
    `From ${span} (${zoneLabel(timeZone)}): ` +
    `${formatScaledEnergy(deliveredWh, scale)} delivered of ${formatScaledEnergy(commandedWh, scale)} commanded${share}; ` +
    `commanded at most ${formatScaledBatteryPower(peakPoint?.commandedW ?? 0, scale)}. ` +
    `At least ${fewest === 1 ? '1 device' : `${fewest} devices`} measured in each step.`
  );
}
