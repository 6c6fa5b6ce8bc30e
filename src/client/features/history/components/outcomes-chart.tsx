import { useMemo, useRef } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import type { StatusRecord } from '../../../../domain/command.ts';
import { useChartPalette } from '../hooks/use-chart-palette.ts';
import { outcomesChartSummary } from '../lib/chart-summary.ts';
import {
  OUTCOME_KEYS,
  OUTCOME_WORDS,
  outcomeTotals,
  outcomesByDay,
} from '../lib/outcomes-by-day.ts';
import { ChartExportButtons } from './chart-export-button.tsx';

const CHART_HEIGHT_PX = 300;

/**
 * Commands per site-local day by outcome: completed, cancelled by reason, and the
 * still-live states, stacked. Every command in view counts once, so the bars add up to the
 * table's count; the summary says that count in words.
 */
export function OutcomesChart(props: {
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
  const days = useMemo(
    () => outcomesByDay(commands, startMs, endMs, timeZone),
    [commands, startMs, endMs, timeZone],
  );
  const totals = useMemo(() => outcomeTotals(days), [days]);
  const present = OUTCOME_KEYS.filter((key) => totals.has(key));
  const summary = outcomesChartSummary(days);
  const total = [...totals.values()].reduce((sum, count) => sum + count, 0);

  return (
    <figure
      className="history-chart"
      aria-labelledby="outcomes-chart-title"
      data-command-count={total}
    >
      <div className="history-chart-header">
        <h3 id="outcomes-chart-title">Outcomes per day</h3>
        <ChartExportButtons
          frame={frame}
          chartName="outcomes chart"
          fileStem={props.fileStem}
          title="Outcomes per day"
          subtitle={props.subtitle}
          description={summary}
          legend={present.map((key) => ({
            label: OUTCOME_WORDS[key],
            color: palette.outcomes[key],
            mark: 'area',
          }))}
          palette={palette}
          disabled={total === 0}
        />
      </div>
      <div ref={frame} className="history-chart-frame" aria-hidden="true">
        {total === 0 ? null : (
          <BarChart
            data={days}
            responsive
            style={{ width: '100%', height: CHART_HEIGHT_PX }}
            margin={{ top: 8, right: 16, bottom: 8, left: 16 }}
            accessibilityLayer={false}
          >
            <CartesianGrid stroke={palette.grid} strokeDasharray="3 3" vertical={false} />
            <XAxis
              dataKey="day"
              tickFormatter={(day: string) => day.slice(5)}
              stroke={palette.axis}
              tick={{ fill: palette.text }}
              label={{
                value: `Day of the window's start (${timeZone})`,
                position: 'insideBottom',
                offset: -4,
                fill: palette.text,
              }}
              height={44}
            />
            <YAxis
              allowDecimals={false}
              stroke={palette.axis}
              tick={{ fill: palette.text }}
              width={56}
              label={{
                value: 'Commands',
                angle: -90,
                position: 'insideLeft',
                fill: palette.text,
                style: { textAnchor: 'middle' },
              }}
            />
            <Tooltip
              contentStyle={{ background: palette.background, color: palette.text }}
              cursor={{ fill: palette.grid, opacity: 0.4 }}
            />
            <Legend wrapperStyle={{ color: palette.text }} />
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
          </BarChart>
        )}
      </div>
      <figcaption className="history-chart-summary">{summary}</figcaption>
    </figure>
  );
}
