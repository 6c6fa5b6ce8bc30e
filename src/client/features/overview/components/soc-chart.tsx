import { useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, XAxis, YAxis } from 'recharts';
import { ChartFrame, type ChartTarget } from '#client/components/chart-frame.tsx';
import {
  AxisTitles,
  CHART_FONT_PX,
  CHART_MARGIN,
  countAxisProps,
  PlotAreaProbe,
  plotBox,
  useChartGeometry,
  useTickStyle,
} from '#client/components/chart-parts.tsx';
import { categoryTickInterval } from '#client/lib/chart-axes.ts';
import { useDesignTokens } from '#client/lib/design-tokens.ts';
import { textWidthPx } from '#client/lib/text-width.ts';
import { devicesWords, socBandLabel } from '../lib/fleet-picture-words.ts';
// The bars' colours come from the tokens: load them wherever the chart renders.
import '#client/styles/tokens.css';

export const SOC_CHART_HEIGHT_PX = 180;
const AXES_ESTIMATE_PX = 48;
const SOC_MARGIN = { ...CHART_MARGIN, right: 22, bottom: CHART_MARGIN.bottom - 4 };

/**
 * Reporting devices per band of state of charge, as columns from empty to full; the tooltip (and
 * arrows) give each band's count, the figure's caption (`summaryId`) and table the same in words.
 */
export function SocChart({
  socBands,
  summaryId,
}: {
  socBands: readonly number[];
  summaryId: string;
}) {
  const tokens = useDesignTokens();
  const { measureRef, widthPx, plot, onPlotArea, plotWidthPx } = useChartGeometry(AXES_ESTIMATE_PX);
  const data = useMemo(
    () => socBands.map((devices, band) => ({ band: socBandLabel(band), devices })),
    [socBands],
  );
  const countAxis = useMemo(() => countAxisProps(socBands), [socBands]);
  const tick = useTickStyle(tokens.text);
  const tickInterval = useMemo(() => {
    const widestPx = Math.max(...data.map(({ band }) => textWidthPx(band, CHART_FONT_PX)));
    return categoryTickInterval(data.length, plotWidthPx, widestPx);
  }, [data, plotWidthPx]);
  const targets: ChartTarget[] = useMemo(
    () =>
      plot
        ? data.map(({ band, devices }, index) => ({
            key: band,
            leftPx: plot.x + (index * plot.width) / data.length,
            rightPx: plot.x + ((index + 1) * plot.width) / data.length,
            lines: [`State of charge ${band}`, devicesWords(devices)],
          }))
        : [],
    [plot, data],
  );
  return (
    <ChartFrame
      widthPx={widthPx}
      measureRef={measureRef}
      label={`State of charge across the fleet, ${data.length} bands; arrow keys show each`}
      summaryId={summaryId}
      heightPx={SOC_CHART_HEIGHT_PX}
      targets={targets}
      legend={[]}
    >
      {(activeIndex) => (
        <BarChart
          data={data}
          {...plotBox(widthPx, SOC_CHART_HEIGHT_PX, SOC_MARGIN)}
          barCategoryGap="12%"
        >
          <CartesianGrid stroke={tokens.border} strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="band"
            interval={tickInterval}
            stroke={tokens.muted}
            tick={tick}
            height={20}
          />
          <YAxis {...countAxis} stroke={tokens.muted} tick={tick} width="auto" />
          {activeIndex !== null && plot ? (
            <rect
              x={plot.x + (activeIndex * plot.width) / data.length}
              width={plot.width / data.length}
              y={plot.y}
              height={plot.height}
              fill={tokens.border}
              fillOpacity={0.5}
            />
          ) : null}
          <Bar dataKey="devices" name="Devices" fill={tokens.accent} isAnimationActive={false} />
          <AxisTitles left="Devices" bottom="State of charge" color={tokens.text} />
          <PlotAreaProbe onChange={onPlotArea} />
        </BarChart>
      )}
    </ChartFrame>
  );
}
