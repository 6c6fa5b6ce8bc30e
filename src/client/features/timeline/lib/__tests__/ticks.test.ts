import { describe, expect, it } from 'vitest';
import { axisTicks, chooseTickStep, type TickStep } from '../ticks.ts';

const DAY: TickStep = { unit: 'day', count: 1, approxMs: 86_400_000 };
const HOUR: TickStep = { unit: 'hour', count: 1, approxMs: 3_600_000 };
const HOUR_MS = 3_600_000;

/** {@link axisTicks} from `fromIso` to `toIso` (UTC instants) by `step` on `zone`'s clock. */
const ticksBetween = (fromIso: string, toIso: string, step: TickStep, zone: string) =>
  axisTicks(Date.parse(fromIso), Date.parse(toIso), step, zone);

function dayLengthsH(zone: string, fromIso: string, toIso: string): number[] {
  const ticks = ticksBetween(fromIso, toIso, DAY, zone);
  return ticks.slice(1).map((tick, i) => (tick.ms - (ticks[i]?.ms ?? NaN)) / HOUR_MS);
}

describe('axisTicks', () => {
  it('puts day ticks on Berlin midnights, with a 23-hour day in March and a 25-hour day in October', () => {
    expect(dayLengthsH('Europe/Berlin', '2026-03-27T12:00:00Z', '2026-03-31T12:00:00Z')).toEqual([
      24, 23, 24,
    ]);
    expect(dayLengthsH('Europe/Berlin', '2026-10-23T12:00:00Z', '2026-10-27T12:00:00Z')).toEqual([
      24, 25, 24,
    ]);
    const [first] = ticksBetween(
      '2026-03-29T00:00:00Z',
      '2026-03-30T00:00:00Z',
      DAY,
      'Europe/Berlin',
    );
    expect(first).toEqual({
      ms: Date.parse('2026-03-29T22:00:00Z'),
      label: 'Mon 30 Mar',
      dayStart: true,
    });
  });

  it('handles Adelaide DST: a 23-hour day in October and a 25-hour day in April', () => {
    expect(
      dayLengthsH('Australia/Adelaide', '2026-10-02T12:00:00Z', '2026-10-06T12:00:00Z'),
    ).toEqual([24, 23, 24]);
    expect(
      dayLengthsH('Australia/Adelaide', '2026-04-03T12:00:00Z', '2026-04-07T12:00:00Z'),
    ).toEqual([24, 25, 24]);
  });

  it('puts Adelaide hour ticks on local full hours, at half past in UTC', () => {
    const ticks = ticksBetween(
      '2026-11-21T00:00:00Z',
      '2026-11-21T03:00:00Z',
      HOUR,
      'Australia/Adelaide',
    );
    expect(ticks.map((t) => new Date(t.ms).toISOString())).toEqual([
      '2026-11-21T00:30:00.000Z',
      '2026-11-21T01:30:00.000Z',
      '2026-11-21T02:30:00.000Z',
    ]);
    expect(ticks.map((t) => t.label)).toEqual(['11:00', '12:00', '13:00']);
  });

  it('skips the missing hour in spring and repeats the doubled hour in autumn (Berlin)', () => {
    const berlinHours = (fromIso: string, toIso: string) =>
      ticksBetween(fromIso, toIso, HOUR, 'Europe/Berlin').map((t) => t.label);
    expect(berlinHours('2026-03-28T23:00:00Z', '2026-03-29T02:00:00Z')).toEqual([
      'Sun 29 Mar',
      '01:00',
      '03:00',
      '04:00',
    ]);
    expect(berlinHours('2026-10-24T23:00:00Z', '2026-10-25T02:00:00Z')).toEqual([
      '01:00',
      '02:00',
      '02:00',
      '03:00',
    ]);
  });

  it('labels UTC ticks in UTC', () => {
    const ticks = ticksBetween(
      '2026-11-21T10:00:00Z',
      '2026-11-21T12:00:00Z',
      { unit: 'minute', count: 30, approxMs: 1_800_000 },
      'UTC',
    );
    expect(ticks.map((t) => t.label)).toEqual(['10:00', '10:30', '11:00', '11:30', '12:00']);
  });

  it('keeps 3-hour ticks on local hours divisible by 3', () => {
    const ticks = ticksBetween(
      '2026-11-20T13:30:00Z',
      '2026-11-21T13:30:00Z',
      { unit: 'hour', count: 3, approxMs: 3 * HOUR_MS },
      'Australia/Adelaide',
    );
    expect(ticks.map((t) => t.label)).toEqual([
      'Sat 21 Nov',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
      '15:00',
      '18:00',
      '21:00',
      'Sun 22 Nov',
    ]);
  });
});

describe('chooseTickStep', () => {
  it('picks finer steps when zoomed in and days or weeks when zoomed out', () => {
    expect(chooseTickStep((6 * HOUR_MS) / 1200)).toMatchObject({ unit: 'minute', count: 30 });
    expect(chooseTickStep((24 * HOUR_MS) / 1200)).toMatchObject({ unit: 'hour', count: 2 });
    expect(chooseTickStep((30 * 24 * HOUR_MS) / 1200)).toMatchObject({ unit: 'week' });
  });
});
