import { useState, type ReactNode, type RefObject } from 'react';
import { downloadFile } from '#client/lib/download-file.ts';
import type { ChartPalette } from '../hooks/use-chart-palette.ts';
import { chartSurfaceIn, chartSvgFile, pngScale, svgToPng } from '../lib/svg-export.ts';
import type { LegendEntry } from '#client/components/chart-frame.tsx';

interface ChartExportButtonsProps {
  frame: RefObject<HTMLElement | null>;
  /** The chart named in the buttons' words: "power chart" gives "Save power chart as SVG". */
  chartName: string;
  /** File name without its extension; `.svg` and `.png` are added. */
  fileStem: string;
  title: string;
  subtitle: string;
  description: string;
  legend: readonly LegendEntry[];
  palette: ChartPalette;
  disabled?: boolean;
}

/** Saves the chart in `frame` as a standalone SVG and a PNG made from it (≥ 2× drawn size); a failed PNG is said beside the buttons. */
export function ChartExportButtons(props: ChartExportButtonsProps) {
  const [problem, setProblem] = useState<string | null>(null);
  const file = () => {
    const svg = props.frame.current ? chartSurfaceIn(props.frame.current) : null;
    if (!svg) return null;
    return chartSvgFile(svg, {
      title: props.title,
      subtitle: props.subtitle,
      description: props.description,
      legend: props.legend,
      background: props.palette.background,
      text: props.palette.text,
    });
  };

  return (
    <div className="history-export-buttons">
      <SaveButton
        disabled={props.disabled}
        onSave={() => {
          const drawn = file();
          if (drawn) downloadFile(drawn.text, `${props.fileStem}.svg`, 'image/svg+xml');
        }}
      >
        Save {props.chartName} as SVG
      </SaveButton>
      <SaveButton
        disabled={props.disabled}
        onSave={() => {
          const drawn = file();
          if (!drawn) return;
          setProblem(null);
          svgToPng(drawn.text, drawn.widthPx, drawn.heightPx, pngScale()).then(
            (png) => downloadFile(png, `${props.fileStem}.png`, 'image/png'),
            (error: unknown) =>
              setProblem(
                `Could not make the PNG (${error instanceof Error ? error.message : String(error)}); save the SVG instead.`,
              ),
          );
        }}
      >
        Save {props.chartName} as PNG
      </SaveButton>
      {problem ? (
        <p role="alert" className="notice notice-error">
          {problem}
        </p>
      ) : null}
    </div>
  );
}

/** One of the export's buttons, small beside the chart's heading. */
function SaveButton(props: {
  disabled?: boolean | undefined;
  onSave: () => void;
  children: ReactNode;
}) {
  return (
    <button type="button" className="small" disabled={props.disabled} onClick={props.onSave}>
      {props.children}
    </button>
  );
}
