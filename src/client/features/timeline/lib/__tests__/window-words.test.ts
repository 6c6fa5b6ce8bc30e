import { describe, expect, it } from 'vitest';
import { windowInZone, windowLengthWords, windowReadout, windowSpoken } from '../window-words.ts';

describe('windowInZone', () => {
  it('writes a window in the site wall clock, naming both days across midnight', () => {
    const start = Date.parse('2026-11-21T13:00:00Z');
    expect(windowInZone(start, start + 3_600_000, 'Europe/Berlin')).toBe(
      'Sat 21 Nov 14:00–15:00 Europe/Berlin',
    );
    expect(windowInZone(start, start + 3_600_000, 'Australia/Adelaide')).toBe(
      'Sat 21 Nov 23:30–Sun 22 Nov 00:30 Australia/Adelaide',
    );
  });
});

describe('windowLengthWords', () => {
  it('writes a length to the minute', () => {
    expect(windowLengthWords(45 * 60_000)).toBe('45 min');
    expect(windowLengthWords(85 * 60_000)).toBe('1 h 25 min');
    expect(windowLengthWords(27 * 3_600_000)).toBe('1 day 3 h');
    expect(windowLengthWords(0)).toBe('0 min');
  });
});

describe('windowReadout', () => {
  it('gives start, end and length on the site clock, and the days and zone to screen readers', () => {
    const start = Date.parse('2026-11-21T13:05:00Z');
    expect(windowReadout(start, start + 85 * 60_000, 'Europe/Berlin')).toBe(
      '14:05–15:30 · 1 h 25 min',
    );
    expect(windowSpoken(start, start + 85 * 60_000, 'Europe/Berlin')).toBe(
      'Sat 21 Nov 14:05–15:30 Europe/Berlin, 1 h 25 min',
    );
    // Half past on the Adelaide clock, ending after its midnight.
    expect(windowReadout(start, start + 2 * 3_600_000, 'Australia/Adelaide')).toBe(
      '23:35–Sun 22 Nov 01:35 · 2 h',
    );
  });
});
