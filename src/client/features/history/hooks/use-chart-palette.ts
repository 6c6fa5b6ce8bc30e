import { useMemo } from 'react';
import { CANCELLATION_REASONS } from '#domain/command.ts';
import { useDesignTokens, type DesignTokens } from '#client/lib/design-tokens.ts';
import { OUTCOME_KEYS, type OutcomeKey } from '../lib/outcomes-by-day.ts';
import type { PowerChartSeriesKey } from '../lib/power-series.ts';
// The palette comes from the tokens: load them wherever a chart renders.
import '#client/styles/tokens.css';

/** The charts' colours as literals: an exported file cannot use the page's custom properties. */
export interface ChartPalette {
  background: string;
  text: string;
  grid: string;
  axis: string;
  series: Record<PowerChartSeriesKey, string>;
  outcomes: Record<OutcomeKey, string>;
}

/** The charts' palette from the design tokens (styles/tokens.css, whose test holds each mark at 3:1 against the page). */
export function chartPaletteOf(tokens: DesignTokens): ChartPalette {
  const outcomeColour = (key: OutcomeKey): string => {
    if (key === 'received' || key === 'executing' || key === 'completed')
      return tokens.status[key].fill;
    const reason = CANCELLATION_REASONS.find((candidate) => key === `cancelled:${candidate}`);
    return reason ? tokens.reason[reason] : tokens.status.cancelled.fill;
  };
  return {
    background: tokens.surface,
    text: tokens.text,
    grid: tokens.border,
    axis: tokens.muted,
    series: tokens.powerControl,
    outcomes: Object.fromEntries(OUTCOME_KEYS.map((key) => [key, outcomeColour(key)])) as Record<
      OutcomeKey,
      string
    >,
  };
}

/** The charts' palette of the theme in use; a new one when the colour scheme changes. */
export function useChartPalette(): ChartPalette {
  const tokens = useDesignTokens();
  return useMemo(() => chartPaletteOf(tokens), [tokens]);
}
