import { useSyncExternalStore } from 'react';
import type { OutcomeKey } from '../lib/outcomes-by-day.ts';
import type { PowerChartSeriesKey } from '../lib/power-series.ts';

/** Colours of the charts for one theme; literal values so an exported SVG keeps them. */
export interface ChartPalette {
  background: string;
  text: string;
  grid: string;
  axis: string;
  series: Record<PowerChartSeriesKey, string>;
  outcomes: Record<OutcomeKey, string>;
}

// Chosen for at least 3:1 contrast against each theme's surface (WCAG 1.4.11) and to stay
// apart for the common colour-vision deficiencies (Okabe-Ito based).
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

const QUERY = '(prefers-color-scheme: dark)';

function subscribe(onChange: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => {};
  const media = window.matchMedia(QUERY);
  media.addEventListener('change', onChange);
  return () => media.removeEventListener('change', onChange);
}

const prefersDark = () =>
  typeof window.matchMedia === 'function' && window.matchMedia(QUERY).matches;

/** The chart colours of the theme in use (the app follows `prefers-color-scheme`). */
export function useChartPalette(): ChartPalette {
  const dark = useSyncExternalStore(subscribe, prefersDark, () => false);
  return dark ? DARK : LIGHT;
}
