import { useMemo, useRef } from 'react';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { StatusRecord } from '../../../../domain/command.ts';
import { formatPowerW, POWER_CONTROL_WORDS } from '../../../lib/power-control-words.ts';
import { formatInZone } from '../../../lib/time.ts';
import { useChartPalette } from '../hooks/use-chart-palette.ts';
import { powerChartSummary } from '../lib/chart-summary.ts';
import {
  SERIES_SIGN,
  seriesInUse,
  stepSeries,
  type PowerChartSeriesKey,
} from '../lib/power-series.ts';
import { ChartExportButtons } from './chart-export-button.tsx';

const CHART_HEIGHT_PX = 320;

const isPercent = (key: PowerChartSeriesKey) => POWER_CONTROL_WORDS[key].unit === '%';

const legendLabel = (key: PowerChartSeriesKey) =>
  SERIES_SIGN[key] === -1
    ? `${POWER_CONTROL_WORDS[key].label}, drawn below the axis`
    : POWER_CONTROL_WORDS[key].label;

/** Axis ticks in site time: the date when the range is long, the clock time when it is short. */
export const timeTickFormatter = (timeZone: string, rangeMs: number) => (ms: number) =>
  rangeMs > 2 * 24 * 3_600_000
    ? formatInZone(ms, timeZone).slice(5, 10)
    : formatInZone(ms, timeZone).slice(11);

/**
 * Commanded values over the range as step lines: battery power positive (discharge)
 * above the axis and negative (charge) below, the site limits on the same watt axis, the SoC
 * cut-offs on a second, percent axis; only the controls some command sets. A textual summary
 * stands for the chart with screen readers.
 */
export function PowerChart(props: {
  commands: readonly StatusRecord[];
  startMs: number;
  endMs: number;
  timeZone: string;
  /** `BAT-EU-001-A, 2026-11-16 06:39 to 2026-11-23 06:39 (Europe/Berlin)`, for the files. */
  subtitle: string;
  fileStem: string;
}) {
  const { commands, startMs, endMs, timeZone } = props;
  const palette = useChartPalette();
  const frame = useRef<HTMLDivElement>(null);
  const series = useMemo(() => seriesInUse(commands), [commands]);
  const data = useMemo(
    () => new Map(series.map((key) => [key, stepSeries(commands, key)])),
    [commands, series],
  );
  const summary = useMemo(() => powerChartSummary(commands), [commands]);
  const tick = timeTickFormatter(timeZone, endMs - startMs);
  const hasPercent = series.some(isPercent);
  const hasWatts = series.some((key) => !isPercent(key));

  return (
    <figure className="history-chart" aria-labelledby="power-chart-title">
      <div className="history-chart-header">
        <h3 id="power-chart-title">Commanded power and limits</h3>
        <ChartExportButtons
          frame={frame}
          chartName="power chart"
          fileStem={props.fileStem}
          title="Commanded power and limits"
          subtitle={props.subtitle}
          description={summary}
          legend={series.map((key) => ({
            label: legendLabel(key),
            color: palette.series[key],
            mark: key === 'targetBatteryPowerW' ? 'line' : 'dashed',
          }))}
          palette={palette}
          disabled={series.length === 0}
        />
      </div>
      <div ref={frame} className="history-chart-frame" aria-hidden="true">
        {series.length === 0 ? null : (
          <LineChart
            responsive
            style={{ width: '100%', height: CHART_HEIGHT_PX }}
            margin={{ top: 8, right: 16, bottom: 8, left: 16 }}
            accessibilityLayer={false}
          >
            <CartesianGrid stroke={palette.grid} strokeDasharray="3 3" />
            <XAxis
              dataKey="tMs"
              type="number"
              scale="time"
              domain={[startMs, endMs]}
              allowDataOverflow
              tickFormatter={tick}
              stroke={palette.axis}
              tick={{ fill: palette.text }}
              label={{
                value: `Site time (${timeZone})`,
                position: 'insideBottom',
                offset: -4,
                fill: palette.text,
              }}
              height={44}
            />
            {hasWatts ? (
              <YAxis
                yAxisId="watts"
                stroke={palette.axis}
                tick={{ fill: palette.text }}
                tickFormatter={(w: number) => formatPowerW(w)}
                width={72}
                label={{
                  value: 'Power (W): + discharge, − charge',
                  angle: -90,
                  position: 'insideLeft',
                  fill: palette.text,
                  style: { textAnchor: 'middle' },
                  dx: -8,
                }}
              />
            ) : null}
            {hasPercent ? (
              <YAxis
                yAxisId="percent"
                orientation="right"
                domain={[0, 100]}
                unit="%"
                stroke={palette.axis}
                tick={{ fill: palette.text }}
                width={56}
                label={{
                  value: 'SoC cut-off (%)',
                  angle: 90,
                  position: 'insideRight',
                  fill: palette.text,
                  style: { textAnchor: 'middle' },
                }}
              />
            ) : null}
            {hasWatts ? <ReferenceLine yAxisId="watts" y={0} stroke={palette.axis} /> : null}
            <Tooltip
              labelFormatter={(ms) => `${formatInZone(Number(ms), timeZone)} (${timeZone})`}
              contentStyle={{ background: palette.background, color: palette.text }}
            />
            <Legend wrapperStyle={{ color: palette.text }} />
            {series.map((key) => (
              <Line
                key={key}
                data={data.get(key)}
                dataKey="value"
                name={legendLabel(key)}
                yAxisId={isPercent(key) ? 'percent' : 'watts'}
                type="stepAfter"
                stroke={palette.series[key]}
                strokeWidth={key === 'targetBatteryPowerW' ? 2.5 : 1.5}
                strokeDasharray={key === 'targetBatteryPowerW' ? undefined : '6 3'}
                dot={false}
                connectNulls={false}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        )}
      </div>
      <figcaption className="history-chart-summary">{summary}</figcaption>
    </figure>
  );
}
