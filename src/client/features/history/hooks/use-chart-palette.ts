import { useMemo, useSyncExternalStore } from 'react';
import type { OutcomeKey } from '../lib/outcomes-by-day.ts';
import type { PowerChartSeriesKey } from '../lib/power-series.ts';

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

// Chosen for at least 3:1 contrast against each theme's surface (WCAG 1.4.11) and to stay
// apart for the common colour-vision deficiencies (Okabe-Ito based). They stand until the
// app's design tokens name a colour (see TOKEN_OF).
const LIGHT: ChartPalette = {
  background: '#ffffff',
  text: '#16191f',
  grid: '#d5dae1',
  axis: '#55606e',
  series: {
    targetBatteryPowerW: '#0b57d0',
    siteExportLimitW: '#b45309',
    siteImportLimitW: '#7e22ce',
    chargeCutoffSocPercent: '#047857',
    dischargeCutoffSocPercent: '#be185d',
  },
  outcomes: {
    received: '#0b57d0',
    executing: '#a16207',
    completed: '#047857',
    'cancelled:manuallyCancel': '#4b5563',
    'cancelled:timeWindowOverlap': '#7e22ce',
    'cancelled:startTimeExpire': '#b45309',
    'cancelled:deviceFault': '#b91c1c',
    'cancelled:notSupported': '#be185d',
    'cancelled:unknown': '#1f2937',
  },
};

const DARK: ChartPalette = {
  background: '#181c23',
  text: '#e8ebf0',
  grid: '#3a4250',
  axis: '#a4adba',
  series: {
    targetBatteryPowerW: '#8ab4ff',
    siteExportLimitW: '#fbbf24',
    siteImportLimitW: '#d8b4fe',
    chargeCutoffSocPercent: '#6ee7b7',
    dischargeCutoffSocPercent: '#f9a8d4',
  },
  outcomes: {
    received: '#8ab4ff',
    executing: '#facc15',
    completed: '#6ee7b7',
    'cancelled:manuallyCancel': '#cbd5e1',
    'cancelled:timeWindowOverlap': '#d8b4fe',
    'cancelled:startTimeExpire': '#fdba74',
    'cancelled:deviceFault': '#fca5a5',
    'cancelled:notSupported': '#f9a8d4',
    'cancelled:unknown': '#94a3b8',
  },
};

/**
 * The design token (CSS custom property on `:root`) each colour follows when the page defines
 * it: statuses and cancellation reasons share the app's colours, so a chart's "Completed" is the
 * table's. Colours without a token keep the literal above.
 */
const TOKEN_OF = {
  background: '--surface',
  text: '--text',
  grid: '--border',
  axis: '--muted',
  outcomes: {
    received: '--status-received',
    executing: '--status-executing',
    completed: '--status-completed',
    'cancelled:manuallyCancel': '--reason-manuallyCancel',
    'cancelled:timeWindowOverlap': '--reason-timeWindowOverlap',
    'cancelled:startTimeExpire': '--reason-startTimeExpire',
    'cancelled:deviceFault': '--reason-deviceFault',
    'cancelled:notSupported': '--reason-notSupported',
    'cancelled:unknown': '--status-cancelled',
  },
} as const satisfies Partial<Record<keyof ChartPalette, unknown>>;

/** Reads one design token's value, or `undefined` when the page does not define it. */
export type TokenReader = (name: string) => string | undefined;

/**
 * The palette with every colour that has a token read through `readToken`, the rest (and any
 * token the page lacks) from `fallback`. Pure, so a test or a later token module can drive it.
 */
export function paletteFromTokens(readToken: TokenReader, fallback: ChartPalette): ChartPalette {
  const pick = (name: string, literal: string) => readToken(name) ?? literal;
  const outcomes = { ...fallback.outcomes };
  for (const [key, name] of Object.entries(TOKEN_OF.outcomes) as [OutcomeKey, string][])
    outcomes[key] = pick(name, fallback.outcomes[key]);
  return {
    background: pick(TOKEN_OF.background, fallback.background),
    text: pick(TOKEN_OF.text, fallback.text),
    grid: pick(TOKEN_OF.grid, fallback.grid),
    axis: pick(TOKEN_OF.axis, fallback.axis),
    series: fallback.series,
    outcomes,
  };
}

/**
 * A token of the page as a literal colour (`rgb(...)`): a token may be written with `var()`,
 * `light-dark()` or `color-mix()`, which an exported file could not resolve, so the browser
 * computes it on a probe element in the page's colour scheme.
 */
function readRootToken(name: string): string | undefined {
  if (typeof document === 'undefined' || typeof getComputedStyle !== 'function') return undefined;
  const root = document.documentElement;
  if (getComputedStyle(root).getPropertyValue(name).trim() === '') return undefined;
  const probe = document.createElement('span');
  probe.style.color = `var(${name})`;
  probe.hidden = true;
  root.append(probe);
  const literal = getComputedStyle(probe).color;
  probe.remove();
  return literal === '' ? undefined : literal;
}

const QUERY = '(prefers-color-scheme: dark)';

function subscribe(onChange: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => {};
  const media = window.matchMedia(QUERY);
  media.addEventListener('change', onChange);
  return () => media.removeEventListener('change', onChange);
}

const prefersDark = () =>
  typeof window.matchMedia === 'function' && window.matchMedia(QUERY).matches;

/**
 * The chart colours of the theme in use (the app follows `prefers-color-scheme`): the design
 * tokens where the page defines them, else this module's literals. Read again when the scheme
 * changes.
 */
export function useChartPalette(): ChartPalette {
  const dark = useSyncExternalStore(subscribe, prefersDark, () => false);
  return useMemo(() => paletteFromTokens(readRootToken, dark ? DARK : LIGHT), [dark]);
}
