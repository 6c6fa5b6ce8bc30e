import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MAX_SPAN_MS,
  MIN_SPAN_MS,
  panBy,
  scaleForSpan,
  timeToX,
  xToTime,
  zoomAround,
} from '../time-scale.ts';
import { DEFAULT_SNAP_MS, snapToStep } from '../snap.ts';

const T0 = Date.parse('2026-11-21T00:00:00Z');

describe('time scale', () => {
  it('maps time to pixels and back', () => {
    const scale = scaleForSpan(T0, 24 * 3_600_000, 1200);
    expect(timeToX(scale, T0 + 12 * 3_600_000)).toBe(600);
    expect(xToTime(scale, 600)).toBe(T0 + 12 * 3_600_000);
    fc.assert(
      fc.property(fc.double({ min: -5000, max: 5000, noNaN: true }), (x) => {
        expect(timeToX(scale, xToTime(scale, x))).toBeCloseTo(x, 6);
      }),
    );
  });

  it('zooms around the anchor and clamps the free zoom', () => {
    const scale = scaleForSpan(T0, 24 * 3_600_000, 1000);
    const anchorMs = xToTime(scale, 250);
    const zoomed = zoomAround(scale, 250, 0.5, 1000);
    expect(xToTime(zoomed, 250)).toBeCloseTo(anchorMs, 3);
    expect(zoomed.msPerPx * 1000).toBe(12 * 3_600_000);
    expect(zoomAround(scale, 0, 1e-6, 1000).msPerPx * 1000).toBe(MIN_SPAN_MS);
    expect(zoomAround(scale, 0, 1e6, 1000).msPerPx * 1000).toBe(MAX_SPAN_MS);
  });

  it('pans by pixels', () => {
    const scale = scaleForSpan(T0, 1000 * 60_000, 1000);
    expect(panBy(scale, 30).originMs).toBe(T0 + 30 * 60_000);
  });
});

describe('snapToStep', () => {
  it('snaps to the nearest 5 minutes by default', () => {
    expect(snapToStep(T0 + 2 * 60_000 + 29_000, DEFAULT_SNAP_MS)).toBe(T0);
    expect(snapToStep(T0 + 2 * 60_000 + 31_000, DEFAULT_SNAP_MS)).toBe(T0 + 5 * 60_000);
  });

  it('snaps hours to local full hours in Adelaide (UTC+10:30 in November)', () => {
    const snapped = snapToStep(Date.parse('2026-11-21T01:10:00Z'), 3_600_000, 'Australia/Adelaide');
    expect(new Date(snapped).toISOString()).toBe('2026-11-21T01:30:00.000Z');
  });

  it('always returns a multiple of the step in UTC for 5-minute steps, in any zone we show', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: T0 - 400 * 86_400_000, max: T0 + 400 * 86_400_000 }),
        fc.constantFrom('UTC', 'Europe/Berlin', 'Australia/Adelaide'),
        (ms, zone) => {
          const snapped = snapToStep(ms, DEFAULT_SNAP_MS, zone);
          expect(snapped % DEFAULT_SNAP_MS).toBe(0);
          expect(Math.abs(snapped - ms)).toBeLessThanOrEqual(DEFAULT_SNAP_MS / 2);
        },
      ),
    );
  });
});
