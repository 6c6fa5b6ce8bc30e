import { useId, useRef, type ReactNode } from 'react';
import type { StatusRecord } from '#domain/command.ts';
import { ChartFrame, type ChartTarget, type LegendEntry } from '#client/components/chart-frame.tsx';
import type { ChartPalette } from '../hooks/use-chart-palette.ts';
import { ChartExportButtons } from './chart-export-button.tsx';

/** What a chart of the history page draws: the commands of a range on a site's clock, and its export's names. */
export interface HistoryChartInput {
  commands: readonly StatusRecord[];
  startMs: number;
  endMs: number;
  timeZone: string;
  /** Under the title in the exported file. */
  subtitle: string;
  /** File name of the export without its extension. */
  fileStem: string;
}

/**
 * A chart of the history page: its heading with the export buttons, the chart in a
 * {@link ChartFrame} (nothing drawn while `empty`) and its summary as the caption, which is
 * also the description of the exported file.
 */
export function HistoryChart(props: {
  /** The heading's id; the figure is named by it. */
  titleId: string;
  title: string;
  /** The chart named in the export buttons' words ("power chart"). */
  chartName: string;
  fileStem: string;
  subtitle: string;
  summary: string;
  legend: readonly LegendEntry[];
  palette: ChartPalette;
  empty: boolean;
  /** How many commands the chart counts, on the figure for the tests and the export. */
  commandCount?: number;
  /** From `useChartGeometry`. */
  geometry: {
    widthPx: number;
    measureRef: (element: HTMLDivElement | null) => (() => void) | undefined;
  };
  /** The plot's name for assistive technology, with how its targets are reached. */
  frameLabel: string;
  heightPx: number;
  targets: readonly ChartTarget[];
  children: (activeIndex: number | null) => ReactNode;
}) {
  const frame = useRef<HTMLDivElement>(null);
  const summaryId = useId();
  return (
    <figure
      className="history-chart"
      aria-labelledby={props.titleId}
      data-command-count={props.commandCount}
    >
      <div className="history-chart-header">
        <h3 id={props.titleId}>{props.title}</h3>
        <ChartExportButtons
          frame={frame}
          chartName={props.chartName}
          fileStem={props.fileStem}
          title={props.title}
          subtitle={props.subtitle}
          description={props.summary}
          legend={props.legend}
          palette={props.palette}
          disabled={props.empty}
        />
      </div>
      <div ref={frame}>
        {props.empty ? null : (
          <ChartFrame
            widthPx={props.geometry.widthPx}
            measureRef={props.geometry.measureRef}
            label={props.frameLabel}
            summaryId={summaryId}
            heightPx={props.heightPx}
            targets={props.targets}
            legend={props.legend}
          >
            {props.children}
          </ChartFrame>
        )}
      </div>
      <figcaption id={summaryId} className="history-chart-summary">
        {props.summary}
      </figcaption>
    </figure>
  );
}
