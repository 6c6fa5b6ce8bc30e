import type { SpanPx } from '../../../components/chart-frame.tsx';
import type { StatusRecord } from '../../../../domain/command.ts';
import type { PowerControlProperty } from '../../../../domain/power-control.ts';
import { POWER_CONTROL_WORDS } from '../../../lib/power-control-words.ts';

/** The chart's series: battery power and site limits in watts, SoC cut-offs in percent. */
export type PowerChartSeriesKey = PowerControlProperty;

/**
 * Sign of each series on the chart. Battery power keeps its own sign (docs/upstream.md, Commands:
 * positive discharges, above the axis; negative charges, below). The export limit caps power
 * leaving the site, so it sits above the axis; the import limit caps power entering it, so it is
 * drawn below (negated), and each limit reads as a bound on the battery-power line's side.
 */
export const SERIES_SIGN: Record<PowerChartSeriesKey, 1 | -1> = {
  targetBatteryPowerW: 1,
  siteExportLimitW: 1,
  siteImportLimitW: -1,
  chargeCutoffSocPercent: 1,
  dischargeCutoffSocPercent: 1,
};

/** Drawing order of the series, which is also the legend's. */
const SERIES_ORDER: readonly PowerChartSeriesKey[] = [
  'targetBatteryPowerW',
  'siteExportLimitW',
  'siteImportLimitW',
  'chargeCutoffSocPercent',
  'dischargeCutoffSocPercent',
];

/** True for the SoC cut-offs, drawn on the percent axis; the others share the watt axis. */
export const isPercentSeries = (key: PowerChartSeriesKey) => POWER_CONTROL_WORDS[key].unit === '%';

/**
 * One command's window on the chart: from `startMs` to `endMs` (UTC epoch ms) the commanded
 * values hold; outside a window the device follows its own settings, which no command tells.
 * `drawnValues` are signed as drawn ({@link SERIES_SIGN}); the command keeps the values it sent.
 */
export interface PowerWindow {
  command: StatusRecord;
  startMs: number;
  endMs: number;
  drawnValues: Partial<Record<PowerChartSeriesKey, number>>;
}

/**
 * The windows of the commands that set at least one control, in time order (ties by end, then
 * command ID, so the keyboard walks them in a stable order).
 */
export function powerWindows(commands: readonly StatusRecord[]): PowerWindow[] {
  return commands
    .flatMap((command) => {
      const drawnValues: PowerWindow['drawnValues'] = {};
      for (const key of SERIES_ORDER) {
        const value = command.powerControl[key];
        if (value !== undefined) drawnValues[key] = value * SERIES_SIGN[key];
      }
      if (Object.keys(drawnValues).length === 0) return [];
      return [
        {
          command,
          startMs: Date.parse(command.startTime),
          endMs: Date.parse(command.endTime),
          drawnValues,
        },
      ];
    })
    .sort(
      (a, b) =>
        a.startMs - b.startMs || a.endMs - b.endMs || a.command.id.localeCompare(b.command.id),
    );
}

/** The series with at least one value, in drawing order: a control no command sets is not drawn. */
export function seriesInUse(commands: readonly StatusRecord[]): PowerChartSeriesKey[] {
  return SERIES_ORDER.filter((property) =>
    commands.some((command) => command.powerControl[property] !== undefined),
  );
}

/** A horizontal extent in px. */
/**
 * Where a window is drawn: its true extent, widened about its middle to at least `minWidthPx` so
 * a 9-minute window stays visible over a day or a month, and kept inside `[plotLeftPx,
 * plotRightPx]` (a window reaching out of the range is cut at the range's edge).
 */
export function drawnSpanPx(
  startPx: number,
  endPx: number,
  minWidthPx: number,
  plotLeftPx: number,
  plotRightPx: number,
): SpanPx {
  let leftPx = Math.max(plotLeftPx, Math.min(startPx, endPx));
  let rightPx = Math.min(plotRightPx, Math.max(startPx, endPx));
  const missingPx = minWidthPx - (rightPx - leftPx);
  if (missingPx > 0) {
    leftPx -= missingPx / 2;
    rightPx += missingPx / 2;
    if (leftPx < plotLeftPx) [leftPx, rightPx] = [plotLeftPx, plotLeftPx + minWidthPx];
    if (rightPx > plotRightPx) [leftPx, rightPx] = [plotRightPx - minWidthPx, plotRightPx];
  }
  return { leftPx, rightPx };
}
