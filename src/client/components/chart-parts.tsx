import { useEffect } from 'react';
import { useChartHeight, useChartWidth, usePlotArea, type PlotArea } from 'recharts';

/** Font size of tick labels and axis titles in px: set, not inherited, so layout is predictable. */
export const CHART_FONT_PX = 12;

/** Room above the plot for the value axes' titles, in px. */
export const TITLE_ROOM_TOP_PX = 26;
/** Room below the x axis's ticks for its title, in px. */
export const TITLE_ROOM_BOTTOM_PX = 22;

/**
 * Reports the chart's plot area (px, from the chart's top left) to `onChange` whenever it moves,
 * so what the page places over the chart (hover targets, the tooltip) uses the chart's geometry.
 */
export function PlotAreaProbe({ onChange }: { onChange: (area: PlotArea) => void }) {
  const area = usePlotArea();
  useEffect(() => {
    if (area) onChange(area);
  }, [area, onChange]);
  return null;
}

/** True when two plot areas are the same rectangle. */
export const samePlotArea = (a: PlotArea | undefined, b: PlotArea) =>
  a !== undefined && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

/**
 * Axis titles written horizontally in the chart's own margins: the left (and right) value axis
 * titles above the plot, at its corners, and the time axis title centred under the ticks. A
 * rotated title beside long tick labels is what got cut off ("- charg"); here each title starts
 * inside the chart's box and has a whole line to itself.
 */
export function AxisTitles(props: { left: string; right?: string; bottom: string; color: string }) {
  const widthPx = useChartWidth() ?? 0;
  const heightPx = useChartHeight() ?? 0;
  const area = usePlotArea();
  if (!area || widthPx === 0) return null;
  const common = { fill: props.color, fontSize: CHART_FONT_PX, className: 'chart-axis-title' };
  return (
    <g>
      <text {...common} x={4} y={CHART_FONT_PX + 2} textAnchor="start">
        {props.left}
      </text>
      {props.right ? (
        <text {...common} x={widthPx - 4} y={CHART_FONT_PX + 2} textAnchor="end">
          {props.right}
        </text>
      ) : null}
      <text {...common} x={area.x + area.width / 2} y={heightPx - 6} textAnchor="middle">
        {props.bottom}
      </text>
    </g>
  );
}
