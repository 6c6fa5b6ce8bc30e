import type { RefObject } from 'react';
import type { ChartPalette } from '../hooks/use-chart-palette.ts';
import { chartSvgFile, downloadFile, type LegendEntry } from '../lib/svg-export.ts';

/** Saves the chart rendered inside `frame` as an SVG file, with its title, summary and legend. */
export function ChartExportButton(props: {
  frame: RefObject<HTMLDivElement | null>;
  /** The button's words, naming the chart: "Save power chart as SVG". */
  label: string;
  fileName: string;
  title: string;
  description: string;
  legend: readonly LegendEntry[];
  palette: ChartPalette;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      className="small"
      disabled={props.disabled}
      onClick={() => {
        const svg = props.frame.current?.querySelector('svg.recharts-surface');
        if (!(svg instanceof SVGSVGElement)) return;
        const file = chartSvgFile(svg, {
          title: props.title,
          description: props.description,
          legend: props.legend,
          background: props.palette.background,
          text: props.palette.text,
        });
        downloadFile(file, props.fileName, 'image/svg+xml');
      }}
    >
      {props.label}
    </button>
  );
}
