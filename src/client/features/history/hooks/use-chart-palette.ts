import { useMemo } from 'react';
import { CANCELLATION_REASONS } from '../../../../domain/command.ts';
import { useDesignTokens, type DesignTokens } from '../../../lib/design-tokens.ts';
import { OUTCOME_KEYS, type OutcomeKey } from '../lib/outcomes-by-day.ts';
import type { PowerChartSeriesKey } from '../lib/power-series.ts';
// The palette is read from the tokens: load them wherever a chart is rendered (the app, a test).
import '../../../styles/tokens.css';

/**
 * Colours of the charts for one theme, as literal CSS colours: an exported file must carry them
 * itself, outside the page's custom properties.
 */
export interface ChartPalette {
  background: string;
  text: string;
  grid: string;
  axis: string;
  series: Record<PowerChartSeriesKey, string>;
  outcomes: Record<OutcomeKey, string>;
}

/**
 * The charts' palette from the theme's design tokens (styles/tokens.css, whose test holds every
 * mark at 3:1 against the page): the surface, text, border (grid) and muted (axis) colours, each
 * power control's mark, and for the outcomes the status fills, a cancellation reason's mark for
 * each reason and the cancelled fill for a reason the upstream did not give.
 */
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
