import { describe, expect, it } from 'vitest';
import { chooseAxisTiers, LABEL_GAP_PX, layoutAxis, type AxisLabel } from '../axis-layout.ts';
import { scaleAroundNow, ZOOM_PRESETS } from '../time-scale.ts';

/** A text measure like a 12 px sans-serif: wide enough that overlaps would show. */
const measure = (text: string) => text.length * 7;
const WIDTH_PX = 1040;
const ZONES = ['Europe/Berlin', 'Australia/Adelaide', 'UTC'];
// A plain day, the last Sunday of March (Berlin springs forward) and a month's turn.
const NOWS = ['2026-11-23T16:40:00Z', '2026-03-29T00:30:00Z', '2026-11-30T22:10:00Z'];

const tier = (labels: AxisLabel[], which: AxisLabel['tier']) =>
  labels.filter((label) => label.tier === which).sort((a, b) => a.xPx - b.xPx);

describe('layoutAxis', () => {
  for (const preset of ZOOM_PRESETS)
    for (const zone of ZONES)
      for (const now of NOWS)
        it(`never overlaps or cuts a label: ${preset.label}, ${zone}, ${now}`, () => {
          const scale = scaleAroundNow(Date.parse(now), preset.spanMs, WIDTH_PX);
          // Pan by odd amounts too: labels come and go at the edges.
          for (const shiftPx of [0, 37, 301, 777]) {
            const shifted = { ...scale, originMs: scale.originMs + shiftPx * scale.msPerPx };
            const labels = layoutAxis(shifted, WIDTH_PX, zone, measure);
            for (const which of ['upper', 'lower'] as const) {
              const row = tier(labels, which);
              expect(row.length, which).toBeGreaterThan(0);
              row.forEach((label, i) => {
                expect(label.xPx).toBeGreaterThanOrEqual(0);
                expect(label.xPx + label.widthPx).toBeLessThanOrEqual(WIDTH_PX);
                const next = row[i + 1];
                if (next)
                  expect(label.xPx + label.widthPx + LABEL_GAP_PX).toBeLessThanOrEqual(next.xPx);
              });
            }
          }
        });

  it('writes hours below the day up to a day, and days below the month at 30 days', () => {
    const now = Date.parse(NOWS[0] ?? '');
    const day = layoutAxis(
      scaleAroundNow(now, 86_400_000, WIDTH_PX),
      WIDTH_PX,
      'Europe/Berlin',
      measure,
    );
    expect(tier(day, 'lower').map((l) => l.text)).toContain('18:00');
    expect(tier(day, 'upper').map((l) => l.text)).toContain('Mon 23 Nov');
    const month = layoutAxis(
      scaleAroundNow(now, 30 * 86_400_000, WIDTH_PX),
      WIDTH_PX,
      'Europe/Berlin',
      measure,
    );
    expect(tier(month, 'upper').map((l) => l.text)).toContain('November 2026');
    expect(tier(month, 'lower').map((l) => l.text)).toContain('24');
  });

  it('names the day in view at the left edge when it began before the view', () => {
    const now = Date.parse('2026-11-23T16:40:00Z');
    const labels = layoutAxis(
      scaleAroundNow(now, 6 * 3_600_000, WIDTH_PX),
      WIDTH_PX,
      'UTC',
      measure,
    );
    expect(tier(labels, 'upper')[0]).toMatchObject({ text: 'Mon 23 Nov', xPx: 4 });
  });

  it('keeps 24-hour clock labels in the lower tier', () => {
    expect(chooseAxisTiers((6 * 3_600_000) / WIDTH_PX).lower.pattern).toBe('HH:mm');
  });
});
