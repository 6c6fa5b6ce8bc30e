import { useCallback, useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, XAxis, YAxis } from 'recharts';
import { useChartPalette } from '../hooks/use-chart-palette.ts';
import { formatSiteTimeTick, categoryTickInterval } from '#client/lib/chart-axes.ts';
import { outcomeDayWords, outcomesChartSummary } from '../lib/chart-summary.ts';
import {
  OUTCOME_KEYS,
  OUTCOME_WORDS,
  outcomeTotals,
  outcomesByDay,
} from '../lib/outcomes-by-day.ts';
import { textWidthPx } from '#client/lib/text-width.ts';
import { zoneLabel } from '#client/lib/time.ts';
import { HistoryChart, type HistoryChartInput } from './history-chart.tsx';
import type { ChartTarget, LegendEntry } from '#client/components/chart-frame.tsx';
import {
  AxisTitles,
  CHART_FONT_PX,
  countAxisProps,
  PlotAreaProbe,
  plotBox,
  useChartGeometry,
  useTickStyle,
} from '#client/components/chart-parts.tsx';

const CHART_HEIGHT_PX = 300;
/** Until the plot has been measured: what the axis usually takes from the chart's width. */
const AXES_ESTIMATE_PX = 60;

/** Commands per site-local day by outcome, stacked; each counts once, so bars add up to the table's count. */
export function OutcomesChart(props: HistoryChartInput) {
  const { commands, startMs, endMs, timeZone } = props;
  const palette = useChartPalette();
  const { measureRef, widthPx, plot, onPlotArea, plotWidthPx } = useChartGeometry(AXES_ESTIMATE_PX);
  const days = useMemo(
    () => outcomesByDay(commands, startMs, endMs, timeZone),
    [commands, startMs, endMs, timeZone],
  );
  const totals = useMemo(() => outcomeTotals(days), [days]);
  const present = useMemo(() => OUTCOME_KEYS.filter((key) => totals.has(key)), [totals]);
  const summary = outcomesChartSummary(days, timeZone);
  const total = [...totals.values()].reduce((sum, count) => sum + count, 0);
  const countAxis = useMemo(
    () => countAxisProps(days.map((day) => OUTCOME_KEYS.reduce((sum, key) => sum + day[key], 0))),
    [days],
  );
  const tickInterval = useMemo(() => {
    const widestPx = Math.max(
      ...days.map((day) =>
        textWidthPx(formatSiteTimeTick(day.startMs, timeZone, 'day'), CHART_FONT_PX),
      ),
    );
    return categoryTickInterval(days.length, plotWidthPx, widestPx);
  }, [days, timeZone, plotWidthPx]);
  // Recharts stores axis settings: a new object per render would be re-stored each render, so memoise.
  const dayTick = useCallback(
    (key: string) => {
      const day = days.find((candidate) => candidate.day === key);
      return day ? formatSiteTimeTick(day.startMs, timeZone, 'day') : key;
    },
    [days, timeZone],
  );
  const tick = useTickStyle(palette.text);
  const legend: LegendEntry[] = useMemo(
    () =>
      present.map((key) => ({
        label: OUTCOME_WORDS[key],
        color: palette.outcomes[key],
        mark: 'area' as const,
      })),
    [present, palette],
  );
  const targets: ChartTarget[] = useMemo(
    () =>
      plot
        ? days.map((day, index) => ({
            key: day.day,
            leftPx: plot.x + (index * plot.width) / days.length,
            rightPx: plot.x + ((index + 1) * plot.width) / days.length,
            lines: outcomeDayWords(day, timeZone),
          }))
        : [],
    [plot, days, timeZone],
  );

  return (
    <HistoryChart
      titleId="outcomes-chart-title"
      title="Outcomes per day"
      chartName="outcomes chart"
      fileStem={props.fileStem}
      subtitle={props.subtitle}
      summary={summary}
      legend={legend}
      palette={palette}
      empty={total === 0}
      commandCount={total}
      geometry={{ widthPx, measureRef }}
      frameLabel={`Outcomes chart, ${days.length} days; arrow keys show each day`}
      heightPx={CHART_HEIGHT_PX}
      targets={targets}
    >
      {(activeIndex) => (
        <BarChart data={days} {...plotBox(widthPx, CHART_HEIGHT_PX)} barCategoryGap="15%">
          <CartesianGrid stroke={palette.grid} strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="day"
            interval={tickInterval}
            tickFormatter={dayTick}
            stroke={palette.axis}
            tick={tick}
            height={24}
          />
          <YAxis {...countAxis} stroke={palette.axis} tick={tick} width="auto" />
          {activeIndex !== null && plot ? (
            <rect
              className="history-day-active"
              data-screen-only
              x={plot.x + (activeIndex * plot.width) / days.length}
              width={plot.width / days.length}
              y={plot.y}
              height={plot.height}
              fill={palette.grid}
              fillOpacity={0.5}
            />
          ) : null}
          {present.map((key) => (
            <Bar
              key={key}
              dataKey={key}
              name={OUTCOME_WORDS[key]}
              stackId="outcomes"
              fill={palette.outcomes[key]}
              isAnimationActive={false}
            />
          ))}
          <AxisTitles
            left="Commands"
            bottom={`Day of the window's start (${zoneLabel(timeZone)})`}
            color={palette.text}
          />
          <PlotAreaProbe onChange={onPlotArea} />
        </BarChart>
      )}
    </HistoryChart>
  );
}
