import type { StatusRecord } from '../../../../domain/command.ts';
import type { PowerControlProperty } from '../../../../domain/power-control.ts';

/** One point of a step series: from `tMs` on the value is `value`; `null` breaks the line. */
export interface StepPoint {
  tMs: number;
  value: number | null;
}

/** The chart's series: battery power and site limits in watts, SoC cut-offs in percent. */
export type PowerChartSeriesKey = PowerControlProperty;

/**
 * Sign of each series on the chart. Battery power keeps its own sign (spec 2.2: positive
 * discharges, above the axis; negative charges, below). The export limit caps power leaving the
 * site, so it sits above the axis; the import limit caps power entering it, so it is drawn below
 * (negated), and each limit reads as a bound on the battery-power line's side.
 */
export const SERIES_SIGN: Record<PowerChartSeriesKey, 1 | -1> = {
  targetBatteryPowerW: 1,
  siteExportLimitW: 1,
  siteImportLimitW: -1,
  chargeCutoffSocPercent: 1,
  dischargeCutoffSocPercent: 1,
};

/**
 * A step series of one control over the commands' effective windows: the commanded value holds
 * from the window's start to its end, then the line breaks until the next window that sets it
 * (outside a window the device follows its own settings, which no command tells). Commands that
 * do not set the control add nothing. Input in any order; points in time order.
 */
export function stepSeries(
  commands: readonly StatusRecord[],
  property: PowerChartSeriesKey,
): StepPoint[] {
  const windows = commands
    .flatMap((command) => {
      const value = command.powerControl[property];
      if (value === undefined) return [];
      return [
        {
          startMs: Date.parse(command.startTime),
          endMs: Date.parse(command.endTime),
          value: value * SERIES_SIGN[property],
        },
      ];
    })
    .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  return windows.flatMap(({ startMs, endMs, value }) => [
    { tMs: startMs, value },
    { tMs: endMs, value },
    { tMs: endMs, value: null },
  ]);
}

/** The series with at least one point, in drawing order: a control no command sets is not drawn. */
export function seriesInUse(commands: readonly StatusRecord[]): PowerChartSeriesKey[] {
  const order: PowerChartSeriesKey[] = [
    'targetBatteryPowerW',
    'siteExportLimitW',
    'siteImportLimitW',
    'chargeCutoffSocPercent',
    'dischargeCutoffSocPercent',
  ];
  return order.filter((property) =>
    commands.some((command) => command.powerControl[property] !== undefined),
  );
}
