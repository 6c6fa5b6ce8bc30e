import { describe, expect, it } from 'vitest';
import { paletteFromTokens, type ChartPalette } from '../use-chart-palette.ts';

const FALLBACK: ChartPalette = {
  background: '#fff',
  text: '#000',
  grid: '#ccc',
  axis: '#555',
  series: {
    targetBatteryPowerW: '#00f',
    siteExportLimitW: '#f80',
    siteImportLimitW: '#80f',
    chargeCutoffSocPercent: '#080',
    dischargeCutoffSocPercent: '#f08',
  },
  outcomes: {
    received: '#00a',
    executing: '#aa0',
    completed: '#0a0',
    'cancelled:manuallyCancel': '#444',
    'cancelled:timeWindowOverlap': '#707',
    'cancelled:startTimeExpire': '#a50',
    'cancelled:deviceFault': '#a00',
    'cancelled:notSupported': '#a07',
    'cancelled:unknown': '#222',
  },
};

describe('paletteFromTokens', () => {
  it('keeps the literals where the page defines no token', () => {
    expect(paletteFromTokens(() => undefined, FALLBACK)).toEqual(FALLBACK);
  });

  it('takes statuses and reasons from the design tokens, as the page resolves them', () => {
    const tokens: Record<string, string> = {
      '--status-completed': 'rgb(1, 2, 3)',
      '--reason-deviceFault': 'rgb(4, 5, 6)',
      '--status-cancelled': 'rgb(7, 8, 9)',
      '--surface': 'rgb(10, 11, 12)',
    };
    const palette = paletteFromTokens((name) => tokens[name], FALLBACK);
    expect(palette.outcomes.completed).toBe('rgb(1, 2, 3)');
    expect(palette.outcomes['cancelled:deviceFault']).toBe('rgb(4, 5, 6)');
    expect(palette.outcomes['cancelled:unknown']).toBe('rgb(7, 8, 9)');
    expect(palette.outcomes.received).toBe('#00a');
    expect(palette.background).toBe('rgb(10, 11, 12)');
    expect(palette.series).toEqual(FALLBACK.series);
  });
});
