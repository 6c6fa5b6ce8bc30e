import { renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useSiteTimeAxis } from '../chart-parts.tsx';

// 10:00 to 11:00 on Berlin's clock (UTC+1 in November): a fleet job's hour, on minute ticks.
const startMs = Date.parse('2026-11-23T09:00:00Z');
const endMs = Date.parse('2026-11-23T10:00:00Z');
const range = { startMs, endMs, timeZone: 'Europe/Berlin' };

describe('useSiteTimeAxis', () => {
  it('labels ticks on the site clock and spans the range', () => {
    const { result } = renderHook(() =>
      useSiteTimeAxis(range, { plot: undefined, widthPx: 600, plotWidthPx: 540 }, 'minute'),
    );
    expect(result.current.domain).toEqual([startMs, endMs]);
    expect(result.current.ticksMs[0]).toBe(startMs);
    expect(result.current.tickFormatter(startMs)).toBe('10:00');
  });

  it('leaves out a tick whose centred label would run out of the chart at either end', () => {
    // The plot starts 4 px inside the chart and ends at its right edge: the labels of 10:00 and
    // 11:00, centred on the plot's ends, would be cut off.
    const plot = { x: 4, y: 26, width: 596, height: 200 };
    const { result } = renderHook(() =>
      useSiteTimeAxis(range, { plot, widthPx: 600, plotWidthPx: plot.width }, 'minute'),
    );
    expect(result.current.ticksMs.length).toBeGreaterThan(1);
    expect(result.current.ticksMs).not.toContain(startMs);
    expect(result.current.ticksMs).not.toContain(endMs);
    // With room either side (a plot inset by 60 px), the ends keep their ticks.
    const inset = { x: 60, y: 26, width: 480, height: 200 };
    const roomy = renderHook(() =>
      useSiteTimeAxis(range, { plot: inset, widthPx: 600, plotWidthPx: inset.width }, 'minute'),
    );
    expect(roomy.result.current.ticksMs).toContain(startMs);
    expect(roomy.result.current.ticksMs).toContain(endMs);
  });
});
