import { useId, useMemo } from 'react';
import { CartesianGrid, Line, LineChart, XAxis, YAxis } from 'recharts';
import type { FleetProgressSample } from '#domain/fleet-job.ts';
import { ChartFrame, type ChartTarget, type LegendEntry } from '#client/components/chart-frame.tsx';
import {
  AxisTitles,
  CHART_MARGIN,
  countAxisProps,
  PlotAreaProbe,
  plotBox,
  useChartGeometry,
  useSiteTimeAxis,
  useTickStyle,
} from '#client/components/chart-parts.tsx';
import { useDesignTokens } from '#client/lib/design-tokens.ts';
import { formatInZone, formatUtc, zoneLabel } from '#client/lib/time.ts';
// The lines' colours come from the tokens: load them wherever the chart renders.
import '#client/styles/tokens.css';

const CHART_HEIGHT_PX = 240;
const PROGRESS_MARGIN = { ...CHART_MARGIN, right: 16 };
/** Until the plot has been measured: what the axis usually takes from the chart's width. */
const AXES_ESTIMATE_PX = 60;
const SAMPLE_HALF_WIDTH_PX = 4;

type SeriesKey = Exclude<keyof FleetProgressSample, 'atMs'>;
/** The lines, in the order of the legend, the tooltip and the table. */
const SERIES: readonly { key: SeriesKey; words: string; dash?: string }[] = [
  { key: 'sent', words: 'Sent' },
  { key: 'completed', words: 'Completed' },
  { key: 'cancelled', words: 'Cancelled', dash: '6 4' },
  { key: 'failed', words: 'Failed', dash: '2 3' },
];

function countsWords(sample: FleetProgressSample): string {
  return SERIES.map(
    ({ key, words }, i) => `${i === 0 ? words : words.toLowerCase()} ${sample[key]}`,
  ).join(', ');
}

/** The chart's text alternative: where the job stands at its last sample, on `timeZone`'s clock. */
export function progressChartSummary(
  samples: readonly FleetProgressSample[],
  timeZone: string,
): string {
  const last = samples.at(-1);
  if (!last || last.sent + last.failed === 0) return 'No device has been sent yet.';
  const firstSent = samples.find((sample) => sample.sent + sample.failed > 0);
  return `${countsWords(last)} devices by ${formatInZone(last.atMs, timeZone)} (${zoneLabel(timeZone)}); the first batch went out at ${formatInZone(firstSent?.atMs ?? last.atMs, timeZone)}.`;
}

/**
 * A fleet job's devices over time: cumulative step lines (cancelled dashed, failed dotted, so
 * colour is not the only difference), tooltip, summary and table; times on `timeZone`, UTC in tooltip and table.
 */
export function FleetProgressChart({
  samples,
  timeZone,
}: {
  samples: readonly FleetProgressSample[];
  timeZone: string;
}) {
  const tokens = useDesignTokens();
  const summaryId = useId();
  const { measureRef, widthPx, plot, onPlotArea, plotWidthPx } = useChartGeometry(AXES_ESTIMATE_PX);
  const startMs = samples[0]?.atMs ?? 0;
  // A job that has only just begun still gets a minute of axis.
  const endMs = Math.max(samples.at(-1)?.atMs ?? 0, startMs + 60_000);
  const colours: Record<SeriesKey, string> = {
    sent: tokens.status.received.fill,
    completed: tokens.status.completed.fill,
    cancelled: tokens.status.cancelled.fill,
    failed: tokens.danger,
  };
  const timeAxis = useSiteTimeAxis(
    { startMs, endMs, timeZone },
    { plot, widthPx, plotWidthPx },
    'minute',
  );
  const countAxis = useMemo(
    () => countAxisProps(samples.map((sample) => sample.sent + sample.failed)),
    [samples],
  );
  // The lines go on level to the axis's end: nothing changed after the last sample.
  const drawn = useMemo(() => {
    const last = samples.at(-1);
    return last && last.atMs < endMs ? [...samples, { ...last, atMs: endMs }] : [...samples];
  }, [samples, endMs]);
  const tick = useTickStyle(tokens.text);
  const legend: LegendEntry[] = SERIES.map(({ key, words, dash }) => ({
    label: words,
    color: colours[key],
    mark: dash ? 'dashed' : 'line',
  }));
  const targets: ChartTarget[] = useMemo(() => {
    if (!plot) return [];
    const xOf = (ms: number) => plot.x + ((ms - startMs) / (endMs - startMs)) * plot.width;
    return samples.map((sample) => ({
      key: String(sample.atMs),
      leftPx: xOf(sample.atMs) - SAMPLE_HALF_WIDTH_PX,
      rightPx: xOf(sample.atMs) + SAMPLE_HALF_WIDTH_PX,
      lines: [
        `${formatInZone(sample.atMs, timeZone)} (${zoneLabel(timeZone)}), ${formatUtc(sample.atMs)}`,
        ...SERIES.map(({ key, words }) => `${words}: ${sample[key]}`),
      ],
    }));
  }, [plot, samples, startMs, endMs, timeZone]);
  const summary = progressChartSummary(samples, timeZone);

  return (
    <figure className="fleet-progress-chart" aria-labelledby="fleet-progress-chart-title">
      <h3 id="fleet-progress-chart-title">Devices over time</h3>
      <ChartFrame
        widthPx={widthPx}
        measureRef={measureRef}
        label={`Devices over time, ${samples.length} moments; arrow keys show each`}
        summaryId={summaryId}
        heightPx={CHART_HEIGHT_PX}
        targets={targets}
        legend={legend}
      >
        {(activeIndex) => (
          <LineChart data={drawn} {...plotBox(widthPx, CHART_HEIGHT_PX, PROGRESS_MARGIN)}>
            <CartesianGrid stroke={tokens.border} strokeDasharray="3 3" />
            <XAxis dataKey="atMs" {...timeAxis.xAxisProps} stroke={tokens.muted} tick={tick} />
            <YAxis {...countAxis} stroke={tokens.muted} tick={tick} width="auto" />
            {SERIES.map(({ key, words, dash }) => (
              <Line
                key={key}
                dataKey={key}
                name={words}
                type="stepAfter"
                stroke={colours[key]}
                strokeWidth={2}
                {...(dash ? { strokeDasharray: dash } : {})}
                dot={false}
                isAnimationActive={false}
              />
            ))}
            {activeIndex !== null && plot && targets[activeIndex] ? (
              <line
                x1={(targets[activeIndex].leftPx + targets[activeIndex].rightPx) / 2}
                x2={(targets[activeIndex].leftPx + targets[activeIndex].rightPx) / 2}
                y1={plot.y}
                y2={plot.y + plot.height}
                stroke={tokens.text}
                strokeDasharray="2 2"
              />
            ) : null}
            <AxisTitles
              left="Devices"
              bottom={`Time (${zoneLabel(timeZone)})`}
              color={tokens.text}
            />
            <PlotAreaProbe onChange={onPlotArea} />
          </LineChart>
        )}
      </ChartFrame>
      <figcaption id={summaryId} className="hint">
        {summary}
      </figcaption>
      <details>
        <summary>Devices over time as a table</summary>
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Devices over time</caption>
            <thead>
              <tr>
                <th scope="col">Time ({zoneLabel(timeZone)})</th>
                <th scope="col">UTC</th>
                {SERIES.map(({ key, words }) => (
                  <th scope="col" key={key}>
                    {words}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {samples.map((sample) => (
                <tr key={sample.atMs}>
                  <th scope="row">{formatInZone(sample.atMs, timeZone)}</th>
                  <td>{formatUtc(sample.atMs)}</td>
                  {SERIES.map(({ key }) => (
                    <td key={key}>{sample[key]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
