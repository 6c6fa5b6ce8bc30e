import { describe, expect, it } from 'vitest';
import { windowInZone } from '../window-words.ts';

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
