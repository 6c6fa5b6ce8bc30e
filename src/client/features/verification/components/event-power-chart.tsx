import { useId, useMemo } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceLine, XAxis, YAxis } from 'recharts';
import type { EventPowerPoint } from '#domain/fleet-power.ts';
import { ChartFrame, type ChartTarget, type LegendEntry } from '#client/components/chart-frame.tsx';
import {
  AxisTitles,
  PlotAreaProbe,
  plotBox,
  useChartGeometry,
  useSiteTimeAxis,
  useTickStyle,
} from '#client/components/chart-parts.tsx';
import { niceValueAxis } from '#client/lib/chart-axes.ts';
import { useDesignTokens } from '#client/lib/design-tokens.ts';
import { formatInZone, formatUtc, zoneLabel } from '#client/lib/time.ts';
import { eventPowerSummary, eventRangeOf } from '../lib/event-power.ts';
import { formatScaledBatteryPower, powerScaleOf, type PowerScale } from '../lib/power-scale.ts';
// The lines' colours come from the tokens: load them wherever the chart renders.
import '#client/styles/tokens.css';
import './verification.css';

const CHART_HEIGHT_PX = 260;
/** Until the plot has been measured: what the value axis usually takes from the width. */
const AXES_ESTIMATE_PX = 60;

const devicesWord = (count: number) => (count === 1 ? '1 device' : `${count} devices`);

/**
 * An event's commanded against delivered power over its window (a batch's, a fleet job's, a
 * plan's; `eventPowerCurve` of `src/domain/fleet-power.ts`): two step lines, commanded thick,
 * delivered thinner in the measured colour, in MW, kW or W by size, positive discharging; times on
 * `timeZone`'s clock with UTC in the tooltip and the table. Arrow keys show each step.
 *
 * @param points one per step from the window's start, as `eventPowerCurve` gives them.
 * @param stepMs the curve's step (a sampling period), ms.
 */
export function EventPowerChart({
  points,
  stepMs,
  timeZone,
  title = 'Commanded against delivered power',
}: {
  points: readonly EventPowerPoint[];
  stepMs: number;
  timeZone: string;
  title?: string;
}) {
  const tokens = useDesignTokens();
  const summaryId = useId();
  const titleId = useId();
  const { measureRef, widthPx, plot, onPlotArea, plotWidthPx } = useChartGeometry(AXES_ESTIMATE_PX);
  const { startMs, endMs } = eventRangeOf(points, stepMs);
  const scale = useMemo(
    () => powerScaleOf(points.flatMap((point) => [point.commandedW, point.deliveredW])),
    [points],
  );
  // Each step holds until the next: the last one is drawn on to the window's end.
  const data = useMemo(() => {
    const scaled = points.map((point) => ({
      tMs: point.atMs,
      commanded: point.commandedW / scale.divisor,
      delivered: point.deliveredW / scale.divisor,
    }));
    const last = scaled.at(-1);
    return last ? [...scaled, { ...last, tMs: endMs }] : scaled;
  }, [points, scale, endMs]);
  const valueAxis = useMemo(
    () =>
      niceValueAxis(
        data.flatMap((point) => [point.commanded, point.delivered]).concat(data.length ? [] : [0]),
        { includeZero: true },
      ),
    [data],
  );
  const timeAxis = useSiteTimeAxis(
    { startMs, endMs, timeZone },
    { plot, widthPx, plotWidthPx },
    'minute',
  );
  const tick = useTickStyle(tokens.text);
  const legend: LegendEntry[] = [
    { label: 'Commanded', color: tokens.powerControl.targetBatteryPowerW, mark: 'line' },
    { label: 'Delivered (measured)', color: tokens.measuredBatteryPower, mark: 'dashed' },
  ];
  const targets: ChartTarget[] = useMemo(() => {
    if (!plot) return [];
    const xOf = (ms: number) => plot.x + ((ms - startMs) / (endMs - startMs)) * plot.width;
    return points.map((point) => ({
      key: String(point.atMs),
      leftPx: xOf(point.atMs),
      rightPx: Math.max(xOf(point.atMs + stepMs), xOf(point.atMs) + 2),
      lines: [
        `${formatInZone(point.atMs, timeZone)} (${zoneLabel(timeZone)}), ${formatUtc(point.atMs)}`,
        `Commanded: ${formatScaledBatteryPower(point.commandedW, scale)}`,
        `Delivered: ${formatScaledBatteryPower(point.deliveredW, scale)}`,
        `${devicesWord(point.measuredDevices)} measured`,
      ],
    }));
  }, [plot, points, startMs, endMs, stepMs, timeZone, scale]);
  const summary = eventPowerSummary(points, stepMs, timeZone, scale);

  return (
    <figure
      className="verification-chart"
      aria-labelledby={titleId}
      data-testid="event-power-chart"
    >
      <div className="verification-chart-header">
        <h3 id={titleId}>{title}</h3>
      </div>
      {points.length === 0 ? null : (
        <ChartFrame
          widthPx={widthPx}
          measureRef={measureRef}
          label={`${title}, ${points.length} steps; arrow keys show each`}
          summaryId={summaryId}
          heightPx={CHART_HEIGHT_PX}
          targets={targets}
          legend={legend}
        >
          {(activeIndex) => (
            <LineChart data={data} {...plotBox(widthPx, CHART_HEIGHT_PX)}>
              <CartesianGrid stroke={tokens.border} strokeDasharray="3 3" />
              <XAxis dataKey="tMs" {...timeAxis.xAxisProps} stroke={tokens.muted} tick={tick} />
              <YAxis
                type="number"
                domain={valueAxis.domain}
                ticks={valueAxis.ticks}
                interval={0}
                allowDataOverflow
                stroke={tokens.muted}
                tick={tick}
                width="auto"
              />
              <ReferenceLine y={0} stroke={tokens.muted} />
              <Line
                dataKey="commanded"
                name="Commanded"
                type="stepAfter"
                stroke={tokens.powerControl.targetBatteryPowerW}
                strokeWidth={4}
                dot={false}
                isAnimationActive={false}
                className="event-commanded-line"
              />
              <Line
                dataKey="delivered"
                name="Delivered"
                type="stepAfter"
                stroke={tokens.measuredBatteryPower}
                strokeWidth={2}
                strokeDasharray="6 3"
                dot={false}
                isAnimationActive={false}
                className="event-delivered-line"
              />
              {activeIndex !== null && plot && targets[activeIndex] ? (
                <rect
                  x={targets[activeIndex].leftPx}
                  width={targets[activeIndex].rightPx - targets[activeIndex].leftPx}
                  y={plot.y}
                  height={plot.height}
                  fill="none"
                  stroke={tokens.text}
                  strokeDasharray="2 2"
                />
              ) : null}
              <AxisTitles
                left={`Power (${scale.unit}), discharging above 0`}
                bottom={`Site time (${zoneLabel(timeZone)}), 24-hour`}
                color={tokens.text}
              />
              <PlotAreaProbe onChange={onPlotArea} />
            </LineChart>
          )}
        </ChartFrame>
      )}
      <figcaption id={summaryId} className="verification-chart-summary">
        {summary}
      </figcaption>
      {points.length === 0 ? null : <EventPowerTable {...{ points, timeZone, scale }} />}
    </figure>
  );
}

function EventPowerTable({
  points,
  timeZone,
  scale,
}: {
  points: readonly EventPowerPoint[];
  timeZone: string;
  scale: PowerScale;
}) {
  return (
    <details>
      <summary>The steps as a table</summary>
      <div className="table-scroll">
        <table>
          <caption className="visually-hidden">Commanded against delivered power per step</caption>
          <thead>
            <tr>
              <th scope="col">Time ({zoneLabel(timeZone)})</th>
              <th scope="col">UTC</th>
              <th scope="col">Commanded</th>
              <th scope="col">Delivered</th>
              <th scope="col">Devices measured</th>
            </tr>
          </thead>
          <tbody>
            {points.map((point) => (
              <tr key={point.atMs}>
                <th scope="row">{formatInZone(point.atMs, timeZone)}</th>
                <td>{formatUtc(point.atMs)}</td>
                <td>{formatScaledBatteryPower(point.commandedW, scale)}</td>
                <td>{formatScaledBatteryPower(point.deliveredW, scale)}</td>
                <td>{point.measuredDevices}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
