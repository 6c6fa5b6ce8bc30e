import { useCallback, useEffect, useMemo, useState } from 'react';
import { useChartHeight, useChartWidth, usePlotArea, type PlotArea } from 'recharts';
import { formatSiteTimeTick, niceValueAxis, siteTimeTicks } from '../lib/chart-axes.ts';
import { textWidthPx } from '../lib/text-width.ts';
import { useElementWidth } from '../lib/use-element-width.ts';

/** Font size of tick labels and axis titles in px: set, not inherited, so layout is predictable. */
export const CHART_FONT_PX = 12;

/** Room above the plot for the value axes' titles, in px. */
export const TITLE_ROOM_TOP_PX = 26;
/** Room below the x axis's ticks for its title, in px. */
export const TITLE_ROOM_BOTTOM_PX = 22;

/** The margin round a chart's plot, in px: room for the axes' titles above and below it. */
export const CHART_MARGIN = {
  top: TITLE_ROOM_TOP_PX,
  right: 12,
  bottom: TITLE_ROOM_BOTTOM_PX,
  left: 4,
};

/**
 * What every chart of the app gives its recharts chart: the measured width and its height (px),
 * the margin round the plot, and recharts' own keyboard layer off, since the chart's
 * {@link ChartFrame} is what the keyboard and assistive technology reach.
 */
export function plotBox(widthPx: number, heightPx: number, margin = CHART_MARGIN) {
  return { width: widthPx, height: heightPx, margin, accessibilityLayer: false };
}

/**
 * The props of a `YAxis` of whole counts (devices, commands) from 0 over `counts`, with nice
 * ticks ({@link niceValueAxis}); memoise them, recharts stores axis settings.
 */
export function countAxisProps(counts: readonly number[]) {
  const { domain, ticks } = niceValueAxis(counts, { includeZero: true, integer: true });
  return { type: 'number' as const, domain, ticks, interval: 0, allowDecimals: false };
}

/** The tick labels' style in `color`, memoised: recharts stores axis settings, a new object per render re-stores them. */
export function useTickStyle(color: string) {
  return useMemo(() => ({ fill: color, fontSize: CHART_FONT_PX }), [color]);
}

/** Reports the plot area (px from the chart's top left) whenever it moves, for what the page overlays. */
export function PlotAreaProbe({ onChange }: { onChange: (area: PlotArea) => void }) {
  const area = usePlotArea();
  useEffect(() => {
    if (area) onChange(area);
  }, [area, onChange]);
  return null;
}

const samePlotArea = (a: PlotArea | undefined, b: PlotArea) =>
  a !== undefined && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

/**
 * A chart's measured geometry: `measureRef` for its width, `onPlotArea` for a {@link PlotAreaProbe};
 * `plot` stays the same object while unchanged; `plotWidthPx` is estimated with `axesEstimatePx` until measured.
 */
export function useChartGeometry(axesEstimatePx: number) {
  const [measureRef, widthPx] = useElementWidth<HTMLDivElement>();
  const [plot, setPlot] = useState<PlotArea>();
  const onPlotArea = useCallback(
    (area: PlotArea) => setPlot((previous) => (samePlotArea(previous, area) ? previous : area)),
    [],
  );
  return {
    measureRef,
    widthPx,
    plot,
    onPlotArea,
    plotWidthPx: plot?.width ?? widthPx - axesEstimatePx,
  };
}

/**
 * The time axis over `[startMs, endMs]` on `timeZone`'s clock (`siteTimeTicks`), dropping ticks
 * whose label would leave the box. Memoised: recharts stores axis settings, a new object per render re-stores them.
 *
 * @param geometry from {@link useChartGeometry}.
 * @param finest `'minute'` lets a short range take minute ticks.
 */
export function useSiteTimeAxis(
  range: { startMs: number; endMs: number; timeZone: string },
  geometry: { plot: PlotArea | undefined; widthPx: number; plotWidthPx: number },
  finest: 'minute' | 'hour' = 'hour',
) {
  const { startMs, endMs, timeZone } = range;
  const { plot, widthPx, plotWidthPx } = geometry;
  const timeTicks = useMemo(() => {
    const labelPx = (label: string) => textWidthPx(label, CHART_FONT_PX);
    const ticks = siteTimeTicks(
      startMs,
      endMs,
      timeZone,
      Math.max(1, plotWidthPx),
      labelPx,
      finest,
    );
    if (!plot) return ticks;
    const xOf = (ms: number) => plot.x + ((ms - startMs) / (endMs - startMs)) * plot.width;
    const inside = (ms: number) => {
      const halfPx = labelPx(formatSiteTimeTick(ms, timeZone, ticks.unit)) / 2;
      return xOf(ms) - halfPx >= 0 && xOf(ms) + halfPx <= widthPx;
    };
    return { ...ticks, ticksMs: ticks.ticksMs.filter(inside) };
  }, [startMs, endMs, timeZone, plotWidthPx, plot, widthPx, finest]);
  const tickFormatter = useCallback(
    (ms: number) => formatSiteTimeTick(ms, timeZone, timeTicks.unit),
    [timeZone, timeTicks.unit],
  );
  const domain = useMemo(() => [startMs, endMs], [startMs, endMs]);
  return {
    ticksMs: timeTicks.ticksMs,
    tickFormatter,
    domain,
    /** The time `XAxis`'s props but its `dataKey` and colours: every tick shown, none added. */
    xAxisProps: {
      type: 'number',
      scale: 'linear',
      domain,
      allowDataOverflow: true,
      ticks: timeTicks.ticksMs,
      interval: 0,
      tickFormatter,
      height: 24,
    } as const,
  };
}

/** Axis titles written horizontally in the chart's margins: a rotated title beside long ticks got cut off. */
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
