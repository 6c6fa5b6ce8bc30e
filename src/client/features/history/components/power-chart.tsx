import { useMemo } from 'react';
import {
  CartesianGrid,
  LineChart,
  ReferenceLine,
  XAxis,
  YAxis,
  usePlotArea,
  useYAxisScale,
} from 'recharts';
import { formatBatteryPowerW, POWER_CONTROL_WORDS } from '#client/lib/power-control-words.ts';
import { zoneLabel } from '#client/lib/time.ts';
import { useChartPalette, type ChartPalette } from '../hooks/use-chart-palette.ts';
import { niceValueAxis } from '#client/lib/chart-axes.ts';
import { powerChartSummary, powerWindowWords } from '../lib/chart-summary.ts';
import {
  drawnSpanPx,
  isPercentSeries,
  powerWindows,
  SERIES_SIGN,
  seriesInUse,
  type PowerChartSeriesKey,
  type PowerWindow,
} from '../lib/power-series.ts';
import { HistoryChart, type HistoryChartInput } from './history-chart.tsx';
import type { ChartTarget, LegendEntry, SpanPx } from '#client/components/chart-frame.tsx';
import {
  AxisTitles,
  PlotAreaProbe,
  plotBox,
  useChartGeometry,
  useTickStyle,
  useSiteTimeAxis,
} from '#client/components/chart-parts.tsx';

const CHART_HEIGHT_PX = 320;
/** A window is never drawn narrower than this: 9 minutes over a day would be 3 px. */
const MIN_WINDOW_PX = 6;
/** Until the plot has been measured: what the axes usually take from the chart's width. */
const AXES_ESTIMATE_PX = 160;
const PERCENT_TICKS = [0, 25, 50, 75, 100];
const PERCENT_DOMAIN = [0, 100];

const legendLabel = (key: PowerChartSeriesKey) =>
  SERIES_SIGN[key] === -1
    ? `${POWER_CONTROL_WORDS[key].label}, drawn below the axis`
    : POWER_CONTROL_WORDS[key].label;

const markOf = (key: PowerChartSeriesKey): LegendEntry['mark'] =>
  key === 'targetBatteryPowerW' ? 'area' : isPercentSeries(key) ? 'line' : 'dashed';

/**
 * Commanded values per command window: battery power as a bar from zero, site limits dashed on the
 * watt axis, SoC cut-offs on a percent axis; windows at least {@link MIN_WINDOW_PX} wide, ticks on the site's clock.
 */
export function PowerChart(props: HistoryChartInput) {
  const { commands, startMs, endMs, timeZone } = props;
  const palette = useChartPalette();
  const { measureRef, widthPx, plot, onPlotArea, plotWidthPx } = useChartGeometry(AXES_ESTIMATE_PX);
  const series = useMemo(() => seriesInUse(commands), [commands]);
  const windows = useMemo(() => powerWindows(commands), [commands]);
  const summary = useMemo(() => powerChartSummary(commands, timeZone), [commands, timeZone]);
  const hasPercent = series.some(isPercentSeries);
  // Recharts stores axis settings: a new object per render would be re-stored each render, so memoise.
  const wattAxis = useMemo(() => {
    const values = windows.flatMap((window) =>
      series.flatMap((key) => (isPercentSeries(key) ? [] : (window.drawnValues[key] ?? []))),
    );
    return values.length > 0 ? niceValueAxis(values, { includeZero: true, integer: true }) : null;
  }, [windows, series]);
  const timeAxis = useSiteTimeAxis({ startMs, endMs, timeZone }, { plot, widthPx, plotWidthPx });
  const data = useMemo(() => [{ tMs: startMs }, { tMs: endMs }], [startMs, endMs]);
  const tick = useTickStyle(palette.text);
  const legend: LegendEntry[] = useMemo(
    () =>
      series.map((key) => ({
        label: legendLabel(key),
        color: palette.series[key],
        mark: markOf(key),
      })),
    [series, palette],
  );

  const spans: SpanPx[] = useMemo(() => {
    if (!plot) return [];
    const xOf = (ms: number) => plot.x + ((ms - startMs) / (endMs - startMs)) * plot.width;
    return windows.map((window) =>
      drawnSpanPx(
        xOf(window.startMs),
        xOf(window.endMs),
        MIN_WINDOW_PX,
        plot.x,
        plot.x + plot.width,
      ),
    );
  }, [plot, windows, startMs, endMs]);
  const targets: ChartTarget[] = useMemo(
    () =>
      spans.flatMap((span, index) => {
        const window = windows[index];
        return window
          ? [{ ...span, key: window.command.id, lines: powerWindowWords(window, timeZone) }]
          : [];
      }),
    [spans, windows, timeZone],
  );

  return (
    <HistoryChart
      titleId="power-chart-title"
      title="Commanded power and limits"
      chartName="power chart"
      fileStem={props.fileStem}
      subtitle={props.subtitle}
      summary={summary}
      legend={legend}
      palette={palette}
      empty={series.length === 0}
      geometry={{ widthPx, measureRef }}
      frameLabel={`Power chart, ${windows.length === 1 ? '1 window' : `${windows.length} windows`}; arrow keys show each window`}
      heightPx={CHART_HEIGHT_PX}
      targets={targets}
    >
      {(activeIndex) => (
        <LineChart data={data} {...plotBox(widthPx, CHART_HEIGHT_PX)}>
          <CartesianGrid stroke={palette.grid} strokeDasharray="3 3" />
          <XAxis dataKey="tMs" {...timeAxis.xAxisProps} stroke={palette.axis} tick={tick} />
          {wattAxis ? (
            <YAxis
              yAxisId="watts"
              type="number"
              domain={wattAxis.domain}
              ticks={wattAxis.ticks}
              interval={0}
              // The marks are drawn by WindowMarks, so the axis has no data: without this it ignores the domain.
              allowDataOverflow
              stroke={palette.axis}
              tick={tick}
              tickFormatter={formatBatteryPowerW}
              width="auto"
            />
          ) : null}
          {hasPercent ? (
            <YAxis
              yAxisId="percent"
              orientation="right"
              type="number"
              domain={PERCENT_DOMAIN}
              ticks={PERCENT_TICKS}
              interval={0}
              allowDataOverflow
              unit="%"
              stroke={palette.axis}
              tick={tick}
              width="auto"
            />
          ) : null}
          {wattAxis ? <ReferenceLine yAxisId="watts" y={0} stroke={palette.axis} /> : null}
          <WindowMarks
            windows={windows}
            spans={spans}
            palette={palette}
            activeIndex={activeIndex}
          />
          <AxisTitles
            // Limits drawn on the side of the battery power they bound (SERIES_SIGN, docs/upstream.md, Commands).
            left={wattAxis ? 'Power' : 'SoC cut-off (%)'}
            right={wattAxis && hasPercent ? 'SoC cut-off (%)' : undefined}
            bottom={`Site time (${zoneLabel(timeZone)}), 24-hour`}
            color={palette.text}
          />
          <PlotAreaProbe onChange={onPlotArea} />
        </LineChart>
      )}
    </HistoryChart>
  );
}

/** The windows' marks on the chart's scales, at the widths the page computed (`spans`, as `windows`). */
function WindowMarks(props: {
  windows: readonly PowerWindow[];
  spans: readonly SpanPx[];
  palette: ChartPalette;
  activeIndex: number | null;
}) {
  const wattY = useYAxisScale('watts');
  const percentY = useYAxisScale('percent');
  const area = usePlotArea();
  const { palette } = props;
  return (
    <g className="history-window-marks">
      {props.windows.map((window, index) => {
        const span = props.spans[index];
        if (!span) return null;
        const widthPx = span.rightPx - span.leftPx;
        const battery = window.drawnValues.targetBatteryPowerW;
        const zeroY = wattY?.(0);
        const batteryY = battery === undefined ? undefined : wattY?.(battery);
        const lines = (Object.keys(window.drawnValues) as PowerChartSeriesKey[]).flatMap((key) => {
          if (key === 'targetBatteryPowerW') return [];
          const value = window.drawnValues[key];
          const y =
            value === undefined ? undefined : (isPercentSeries(key) ? percentY : wattY)?.(value);
          return y === undefined ? [] : [{ key, y }];
        });
        const active = props.activeIndex === index;
        return (
          <g
            key={window.command.id}
            className="history-window-mark"
            data-command-id={window.command.id}
          >
            {zeroY !== undefined && batteryY !== undefined ? (
              <rect
                x={span.leftPx}
                width={widthPx}
                y={Math.min(zeroY, batteryY)}
                height={Math.max(1, Math.abs(zeroY - batteryY))}
                fill={palette.series.targetBatteryPowerW}
                fillOpacity={0.45}
                stroke={palette.series.targetBatteryPowerW}
                strokeWidth={1.5}
              />
            ) : null}
            {lines.map(({ key, y }) => (
              <line
                key={key}
                x1={span.leftPx}
                x2={span.rightPx}
                y1={y}
                y2={y}
                stroke={palette.series[key]}
                strokeWidth={2.5}
                // A dash pattern on a few px would read as a dot; short windows get a solid line.
                strokeDasharray={markOf(key) === 'dashed' && widthPx > 24 ? '6 3' : undefined}
              />
            ))}
            {active && area ? (
              <rect
                className="history-window-active"
                data-screen-only
                x={span.leftPx - 2}
                width={widthPx + 4}
                y={area.y}
                height={area.height}
                fill="none"
                stroke={palette.text}
                strokeWidth={1}
                strokeDasharray="2 2"
              />
            ) : null}
          </g>
        );
      })}
    </g>
  );
}
