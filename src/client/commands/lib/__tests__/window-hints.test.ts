import { describe, expect, it } from 'vitest';
import { windowHints } from '../command-form-values.ts';

describe('windowHints', () => {
  it('gives the UTC equivalent under a field on a site clock', () => {
    expect(windowHints('2026-11-21T01:00:00Z', 'Australia/Adelaide')).toEqual([
      'UTC 2026-11-21 01:00',
    ]);
  });

  it('does not repeat UTC under a field typed in UTC', () => {
    expect(windowHints('2026-11-21T01:00:00Z', 'UTC')).toEqual([]);
  });

  it("notes the site's clock change on its day, and nothing for no instant", () => {
    const hints = windowHints('2026-03-29T00:30:00Z', 'Europe/Berlin');
    expect(hints[0]).toBe('UTC 2026-03-29 00:30');
    expect(hints[1]).toMatch(/^The clocks go forward this day/);
    expect(windowHints('', 'Europe/Berlin')).toEqual([]);
  });
});
