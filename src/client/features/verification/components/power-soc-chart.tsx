import { useId, useMemo } from 'react';
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  XAxis,
  YAxis,
  ZIndexLayer,
  DefaultZIndexes,
  usePlotArea,
  useYAxisScale,
} from 'recharts';
import type { CommandVerdictRecord } from '#domain/verdict-answer.ts';
import { VERDICT_WORDS } from '#domain/verdict.ts';
import { ChartFrame, type ChartTarget, type LegendEntry } from '#client/components/chart-frame.tsx';
import {
  AxisTitles,
  CHART_FONT_PX,
  CHART_MARGIN,
  PlotAreaProbe,
  plotBox,
  useChartGeometry,
  useSiteTimeAxis,
  useTickStyle,
} from '#client/components/chart-parts.tsx';
import { niceValueAxis } from '#client/lib/chart-axes.ts';
import { useDesignTokens } from '#client/lib/design-tokens.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { formatWindowInZone, formatWindowUtc, zoneLabel } from '#client/lib/time.ts';
import { formatScaledBatteryPower, powerScaleOf } from '../lib/power-scale.ts';
import {
  chartRangeOf,
  commandedPoints,
  meanBatteryPowerW,
  measuredPoints,
  powerSocSummary,
  socSpanPercent,
  verdictWindowWords,
} from '../lib/verdict-chart.ts';
import { VerdictBadge } from './verdict-badge.tsx';
// The lines' colours come from the tokens: load them wherever the chart renders.
import '#client/styles/tokens.css';
import './verification.css';

const CHART_HEIGHT_PX = 300;
const SOC_MARGIN = { ...CHART_MARGIN, right: 8 };
/** Until the plot has been measured: what the two value axes usually take from the width. */
const AXES_ESTIMATE_PX = 110;
/** A window is never a narrower target than this, px: a quarter hour over a day is a few px. */
const MIN_TARGET_PX = 8;
const SOC_TICKS = [0, 25, 50, 75, 100];
const SOC_DOMAIN = [0, 100];
const SOC_DASH = '6 3';

/**
 * A device's battery power and state of charge over its command windows (docs/verification.md):
 * each window a band on the site's clock, the commanded power a thick step line over its judged
 * window, the measured battery power a line (positive = discharging, said in words by the axis),
 * the state of charge dashed on a second axis. Arrow keys show each window (ChartFrame); the
 * summary and a table of the windows are its text alternative.
 *
 * @param records the verdicts to chart, any order; at least one.
 */
export function PowerSocChart({
  records,
  timeZone,
}: {
  records: readonly CommandVerdictRecord[];
  timeZone: string;
}) {
  const tokens = useDesignTokens();
  const summaryId = useId();
  const titleId = useId();
  const { measureRef, widthPx, plot, onPlotArea, plotWidthPx } = useChartGeometry(AXES_ESTIMATE_PX);
  const { startMs, endMs } = useMemo(() => chartRangeOf(records), [records]);
  const ordered = useMemo(
    () => [...records].sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime)),
    [records],
  );
  const measured = useMemo(() => measuredPoints(ordered), [ordered]);
  const commanded = useMemo(() => commandedPoints(ordered), [ordered]);
  const scale = useMemo(
    () =>
      powerScaleOf([
        ...measured.flatMap((point) => (point.batteryPowerW === null ? [] : [point.batteryPowerW])),
        ...commanded.flatMap((point) => (point.commandedW === null ? [] : [point.commandedW])),
      ]),
    [measured, commanded],
  );
  // Recharts stores axis settings and data: new objects per render would be re-stored each render.
  const measuredData = useMemo(
    () =>
      measured.map((point) => ({
        tMs: point.tMs,
        power: point.batteryPowerW === null ? null : point.batteryPowerW / scale.divisor,
        soc: point.socPercent,
      })),
    [measured, scale],
  );
  const commandedData = useMemo(
    () =>
      commanded.map((point) => ({
        tMs: point.tMs,
        power: point.commandedW === null ? null : point.commandedW / scale.divisor,
      })),
    [commanded, scale],
  );
  const powerAxis = useMemo(() => {
    const values = [...measuredData, ...commandedData].flatMap((point) =>
      point.power === null ? [] : [point.power],
    );
    return niceValueAxis(values.length > 0 ? values : [0], { includeZero: true });
  }, [measuredData, commandedData]);
  const timeAxis = useSiteTimeAxis(
    { startMs, endMs, timeZone },
    { plot, widthPx, plotWidthPx },
    'minute',
  );
  const tick = useTickStyle(tokens.text);
  const summary = powerSocSummary(ordered, timeZone, scale);
  const hasTarget = commanded.length > 0;
  const legend: LegendEntry[] = [
    { label: 'Command window', color: tokens.commandWindow, mark: 'area' },
    ...(hasTarget
      ? [
          {
            label: 'Commanded battery power',
            color: tokens.powerControl.targetBatteryPowerW,
            mark: 'line' as const,
          },
        ]
      : []),
    { label: 'Measured battery power', color: tokens.measuredBatteryPower, mark: 'line' },
    { label: 'State of charge (right axis)', color: tokens.measuredSoc, mark: 'dashed' },
  ];
  const targets: ChartTarget[] = useMemo(() => {
    if (!plot) return [];
    const xOf = (ms: number) => plot.x + ((ms - startMs) / (endMs - startMs)) * plot.width;
    return ordered.map((record) => {
      const left = xOf(Date.parse(record.startTime));
      const right = xOf(Date.parse(record.endTime));
      const grow = Math.max(0, MIN_TARGET_PX - (right - left)) / 2;
      return {
        key: record.commandId,
        leftPx: left - grow,
        rightPx: right + grow,
        lines: verdictWindowWords(record, timeZone),
      };
    });
  }, [plot, ordered, startMs, endMs, timeZone]);
  const windowsWord =
    ordered.length === 1 ? '1 command window' : `${ordered.length} command windows`;

  return (
    <figure className="verification-chart" aria-labelledby={titleId} data-testid="power-soc-chart">
      <div className="verification-chart-header">
        <h3 id={titleId}>Battery power and state of charge</h3>
      </div>
      <ChartFrame
        widthPx={widthPx}
        measureRef={measureRef}
        label={`Battery power and state of charge, ${windowsWord}; arrow keys show each window`}
        summaryId={summaryId}
        heightPx={CHART_HEIGHT_PX}
        targets={targets}
        legend={legend}
      >
        {(activeIndex) => (
          <LineChart {...plotBox(widthPx, CHART_HEIGHT_PX, SOC_MARGIN)}>
            <CartesianGrid stroke={tokens.border} strokeDasharray="3 3" />
            {ordered.map((record) => (
              <ReferenceArea
                key={record.commandId}
                yAxisId="power"
                x1={Date.parse(record.startTime)}
                x2={Date.parse(record.endTime)}
                fill={tokens.commandWindow}
                fillOpacity={1}
                stroke="none"
                ifOverflow="hidden"
              />
            ))}
            <XAxis dataKey="tMs" {...timeAxis.xAxisProps} stroke={tokens.muted} tick={tick} />
            <YAxis
              yAxisId="power"
              type="number"
              domain={powerAxis.domain}
              ticks={powerAxis.ticks}
              interval={0}
              allowDataOverflow
              stroke={tokens.muted}
              tick={tick}
              width="auto"
            />
            <YAxis
              yAxisId="soc"
              orientation="right"
              type="number"
              domain={SOC_DOMAIN}
              ticks={SOC_TICKS}
              interval={0}
              allowDataOverflow
              unit="%"
              stroke={tokens.muted}
              tick={tick}
              width="auto"
            />
            <ReferenceLine yAxisId="power" y={0} stroke={tokens.muted} />
            <Line
              data={commandedData}
              dataKey="power"
              yAxisId="power"
              name="Commanded battery power"
              type="linear"
              stroke={tokens.powerControl.targetBatteryPowerW}
              strokeWidth={4}
              dot={false}
              isAnimationActive={false}
              className="commanded-power-line"
            />
            <Line
              data={measuredData}
              dataKey="power"
              yAxisId="power"
              name="Measured battery power"
              type="linear"
              stroke={tokens.measuredBatteryPower}
              strokeWidth={2}
              dot={false}
              isAnimationActive={false}
              className="measured-power-line"
            />
            <Line
              data={measuredData}
              dataKey="soc"
              yAxisId="soc"
              name="State of charge"
              type="linear"
              stroke={tokens.measuredSoc}
              strokeWidth={2}
              strokeDasharray={SOC_DASH}
              dot={false}
              isAnimationActive={false}
              className="measured-soc-line"
            />
            <DirectionWords color={tokens.text} halo={tokens.surface} />
            {activeIndex !== null && plot && targets[activeIndex] ? (
              <ZIndexLayer zIndex={DefaultZIndexes.label}>
                <rect
                  className="active-window"
                  x={targets[activeIndex].leftPx - 2}
                  width={targets[activeIndex].rightPx - targets[activeIndex].leftPx + 4}
                  y={plot.y}
                  height={plot.height}
                  fill="none"
                  stroke={tokens.text}
                  strokeDasharray="2 2"
                />
              </ZIndexLayer>
            ) : null}
            <AxisTitles
              left={`Battery power (${scale.unit})`}
              right="State of charge (%)"
              bottom={`Site time (${zoneLabel(timeZone)}), 24-hour`}
              color={tokens.text}
            />
            <PlotAreaProbe onChange={onPlotArea} />
          </LineChart>
        )}
      </ChartFrame>
      <figcaption id={summaryId} className="verification-chart-summary">
        {summary}
      </figcaption>
      <details>
        <summary>The windows as a table</summary>
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">
              Battery power and state of charge per command window
            </caption>
            <thead>
              <tr>
                <th scope="col">Window ({zoneLabel(timeZone)})</th>
                <th scope="col">UTC</th>
                <th scope="col">Commanded</th>
                <th scope="col">Measured battery power, mean</th>
                <th scope="col">State of charge</th>
                <th scope="col">Verdict</th>
              </tr>
            </thead>
            <tbody>
              {ordered.map((record) => {
                const mean = meanBatteryPowerW(record);
                const soc = socSpanPercent(record);
                return (
                  <tr key={record.commandId}>
                    <th scope="row">
                      {formatWindowInZone(record.startTime, record.endTime, timeZone)}
                    </th>
                    <td>{formatWindowUtc(record.startTime, record.endTime)}</td>
                    <td>{describePowerControl(record.powerControl)}</td>
                    <td>
                      {mean === undefined ? 'Not measured' : formatScaledBatteryPower(mean, scale)}
                    </td>
                    <td>
                      {soc === undefined
                        ? 'Not measured'
                        : `${Number(soc.fromPercent.toFixed(1))}% to ${Number(soc.toPercent.toFixed(1))}%`}
                    </td>
                    <td>
                      <VerdictBadge verdict={record.result.verdict} />
                      <span className="visually-hidden">
                        {' '}
                        {VERDICT_WORDS[record.result.verdict].meaning}
                      </span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/**
 * "Discharging" above the zero line and "Charging" below it, by the power axis, where there is
 * room; over the bands and lines (recharts draws those in layers above plain children), haloed.
 */
function DirectionWords({ color, halo }: { color: string; halo: string }) {
  const area = usePlotArea();
  const powerY = useYAxisScale('power');
  const zeroY = powerY?.(0);
  if (!area || zeroY === undefined) return null;
  const common = {
    x: area.x + 6,
    fill: color,
    fontSize: CHART_FONT_PX,
    textAnchor: 'start' as const,
    stroke: halo,
    strokeWidth: 3,
    paintOrder: 'stroke',
  };
  const roomAbove = zeroY - area.y;
  const roomBelow = area.y + area.height - zeroY;
  return (
    <ZIndexLayer zIndex={DefaultZIndexes.label}>
      <g className="power-direction-words">
        {roomAbove > 2 * CHART_FONT_PX ? (
          <text {...common} y={zeroY - 6}>
            ↑ discharging
          </text>
        ) : null}
        {roomBelow > 2 * CHART_FONT_PX ? (
          <text {...common} y={zeroY + CHART_FONT_PX + 4}>
            ↓ charging
          </text>
        ) : null}
      </g>
    </ZIndexLayer>
  );
}
