import type { SpanPx } from '#client/components/chart-frame.tsx';
import type { StatusRecord } from '#domain/command.ts';
import type { PowerControlProperty } from '#domain/power-control.ts';
import { POWER_CONTROL_WORDS } from '#client/lib/power-control-words.ts';

/** The chart's series: battery power and site limits in watts, SoC cut-offs in percent. */
export type PowerChartSeriesKey = PowerControlProperty;

/**
 * Sign of each series as drawn: battery power keeps its own (docs/upstream.md, Commands); the
 * import limit is negated, so each limit bounds the battery-power line on its side.
 */
export const SERIES_SIGN: Record<PowerChartSeriesKey, 1 | -1> = {
  targetBatteryPowerW: 1,
  siteExportLimitW: 1,
  siteImportLimitW: -1,
  chargeCutoffSocPercent: 1,
  dischargeCutoffSocPercent: 1,
};

const SERIES_ORDER: readonly PowerChartSeriesKey[] = [
  'targetBatteryPowerW',
  'siteExportLimitW',
  'siteImportLimitW',
  'chargeCutoffSocPercent',
  'dischargeCutoffSocPercent',
];

/** True for the SoC cut-offs, drawn on the percent axis; the others share the watt axis. */
export const isPercentSeries = (key: PowerChartSeriesKey) => POWER_CONTROL_WORDS[key].unit === '%';

/** One command's window (epoch ms) where its values hold; `drawnValues` signed as drawn ({@link SERIES_SIGN}). */
export interface PowerWindow {
  command: StatusRecord;
  startMs: number;
  endMs: number;
  drawnValues: Partial<Record<PowerChartSeriesKey, number>>;
}

/** Windows of commands setting any control, by time (ties by end, then ID, for a stable keyboard order). */
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

/** Where a window is drawn: widened about its middle to `minWidthPx`, cut at the plot's edges. */
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
