import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBatteryPowerW } from '../power-control-words.ts';
import {
  categoryTickInterval,
  formatSiteTimeTick,
  niceValueAxis,
  siteTimeTicks,
  TICK_GAP_PX,
} from '../chart-axes.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** 7 px a character: about 12 px system-ui, enough to choose steps the way the page does. */
const labelPx = (label: string) => label.length * 7;

describe('niceValueAxis', () => {
  it('gives one command at -2 kW unique ticks from below it to zero, not five "-2 kW"', () => {
    const axis = niceValueAxis([-2000], { includeZero: true, integer: true });
    expect(axis).toEqual({ domain: [-2500, 0], ticks: [-2500, -2000, -1500, -1000, -500, 0] });
    expect(axis.ticks.map(formatBatteryPowerW)).toEqual([
      '2.5 kW charge',
      '2 kW charge',
      '1.5 kW charge',
      '1 kW charge',
      '500 W charge',
      '0 W',
    ]);
  });

  it('keeps zero between charge and discharge and pads the side a value touches', () => {
    expect(niceValueAxis([3000, -5000, 2000], { includeZero: true, integer: true })).toEqual({
      domain: [-6000, 4000],
      ticks: [-6000, -4000, -2000, 0, 2000, 4000],
    });
  });

  it('opens a domain around values that are all equal', () => {
    expect(niceValueAxis([0], { includeZero: true, integer: true }).ticks).toEqual([-1, 0, 1]);
    expect(niceValueAxis([40, 40]).domain).toEqual([20, 60]);
  });

  it('counts in whole steps', () => {
    expect(niceValueAxis([0, 1], { includeZero: true, integer: true }).ticks).toEqual([0, 1, 2]);
    expect(niceValueAxis([0, 3], { includeZero: true, integer: true }).ticks).toEqual([
      0, 1, 2, 3, 4,
    ]);
  });

  it('refuses no values', () => {
    expect(() => niceValueAxis([])).toThrow(RangeError);
    expect(() => niceValueAxis([Number.NaN])).toThrow(RangeError);
  });

  it('always gives a few unique, ascending ticks around every value, with unique power labels', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1_000_000, max: 1_000_000 }), { minLength: 1, maxLength: 30 }),
        (values) => {
          const { domain, ticks } = niceValueAxis(values, { includeZero: true, integer: true });
          expect(ticks.length).toBeGreaterThanOrEqual(2);
          expect(ticks.length).toBeLessThanOrEqual(8);
          expect(ticks).toContain(0);
          for (const [index, tick] of ticks.entries())
            if (index > 0) expect(tick).toBeGreaterThan(ticks[index - 1] ?? -Infinity);
          expect(domain).toEqual([ticks[0], ticks.at(-1)]);
          expect(Math.min(...values)).toBeGreaterThanOrEqual(domain[0]);
          expect(Math.max(...values)).toBeLessThanOrEqual(domain[1]);
          const labels = ticks.map(formatBatteryPowerW);
          expect(new Set(labels).size).toBe(labels.length);
        },
      ),
    );
  });
});

describe('siteTimeTicks', () => {
  it('gives a few minutes minute ticks on the site clock when asked, and hours otherwise', () => {
    const startMs = Date.parse('2026-11-23T05:01:30Z');
    const endMs = startMs + 12 * 60_000;
    const ticks = siteTimeTicks(startMs, endMs, 'Australia/Adelaide', 500, labelPx, 'minute');
    expect(ticks.unit).toBe('minute');
    // Adelaide is UTC+10:30; 12 minutes on 500 px fit a tick every 2 minutes.
    expect(ticks.step).toBe(2);
    expect(
      ticks.ticksMs.map((ms) => formatSiteTimeTick(ms, 'Australia/Adelaide', 'minute')),
    ).toEqual(['15:32', '15:34', '15:36', '15:38', '15:40', '15:42']);
    expect(siteTimeTicks(startMs, endMs, 'Australia/Adelaide', 500, labelPx).ticksMs).toEqual([]);
  });

  it('puts a 7-day range on the site midnights, whatever zone the test runs in', () => {
    const endMs = Date.parse('2026-11-23T05:39:00Z');
    const ticks = siteTimeTicks(endMs - 7 * DAY_MS, endMs, 'Europe/Berlin', 500, labelPx);
    expect(ticks.unit).toBe('day');
    expect(ticks.step).toBe(1);
    expect(ticks.ticksMs.map((ms) => new Date(ms).toISOString())).toEqual([
      '2026-11-16T23:00:00.000Z',
      '2026-11-17T23:00:00.000Z',
      '2026-11-18T23:00:00.000Z',
      '2026-11-19T23:00:00.000Z',
      '2026-11-20T23:00:00.000Z',
      '2026-11-21T23:00:00.000Z',
      '2026-11-22T23:00:00.000Z',
    ]);
    expect(ticks.ticksMs.map((ms) => formatSiteTimeTick(ms, 'Europe/Berlin', 'day'))).toEqual([
      '17 Nov',
      '18 Nov',
      '19 Nov',
      '20 Nov',
      '21 Nov',
      '22 Nov',
      '23 Nov',
    ]);
  });

  it('gives a day whole hours of a half-hour zone, the date at midnight', () => {
    const endMs = Date.parse('2026-11-23T05:39:00Z');
    const ticks = siteTimeTicks(endMs - DAY_MS, endMs, 'Australia/Adelaide', 500, labelPx);
    expect(ticks).toMatchObject({ unit: 'hour', step: 3 });
    const labels = ticks.ticksMs.map((ms) => formatSiteTimeTick(ms, 'Australia/Adelaide', 'hour'));
    expect(labels).toEqual([
      '18:00',
      '21:00',
      '23 Nov',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
      '15:00',
    ]);
    expect(new Date(ticks.ticksMs[0] ?? 0).toISOString()).toBe('2026-11-22T07:30:00.000Z');
  });

  it('follows the site clock over a DST change: 00:00 and 03:00 are four hours apart', () => {
    const startMs = Date.parse('2026-10-24T22:00:00Z'); // 00:00 CEST, 25 October
    const ticks = siteTimeTicks(startMs, startMs + 25 * HOUR_MS, 'Europe/Berlin', 500, labelPx);
    const labels = ticks.ticksMs.map((ms) => formatSiteTimeTick(ms, 'Europe/Berlin', ticks.unit));
    expect(labels.slice(0, 2)).toEqual(['25 Oct', '03:00']);
    expect((ticks.ticksMs[1] ?? 0) - (ticks.ticksMs[0] ?? 0)).toBe(4 * HOUR_MS);
  });

  it('takes a coarser step when labels would touch, and always leaves them room', () => {
    const endMs = Date.parse('2026-11-23T05:39:00Z');
    for (const [rangeMs, widthPx] of [
      [30 * DAY_MS, 300],
      [30 * DAY_MS, 1400],
      [7 * DAY_MS, 200],
      [DAY_MS, 150],
      [2 * HOUR_MS, 800],
    ] as const) {
      const ticks = siteTimeTicks(endMs - rangeMs, endMs, 'Europe/Berlin', widthPx, labelPx);
      expect(ticks.ticksMs.length).toBeGreaterThanOrEqual(1);
      const pxPerMs = widthPx / rangeMs;
      for (const [index, ms] of ticks.ticksMs.entries()) {
        const next = ticks.ticksMs[index + 1];
        if (next === undefined) continue;
        const halves =
          (labelPx(formatSiteTimeTick(ms, 'Europe/Berlin', ticks.unit)) +
            labelPx(formatSiteTimeTick(next, 'Europe/Berlin', ticks.unit))) /
          2;
        expect((next - ms) * pxPerMs).toBeGreaterThanOrEqual(halves + TICK_GAP_PX);
      }
    }
  });
});

describe('categoryTickInterval', () => {
  it('shows every day when there is room, else every n-th', () => {
    expect(categoryTickInterval(7, 500, 40)).toBe(0);
    expect(categoryTickInterval(30, 500, 40)).toBe(2);
  });
});
