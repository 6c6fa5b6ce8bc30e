import { describe, expect, it } from 'vitest';
import { DEFAULT_HISTORY_SEARCH, parseHistorySearch } from '../history-search.ts';
import { customRangeFromFields, resolveHistoryRange } from '../history-view-range.ts';

const DAY_MS = 24 * 3_600_000;
const custom = (from: string, to: string) => ({
  ...DEFAULT_HISTORY_SEARCH,
  range: 'custom' as const,
  from,
  to,
});

describe('history range rules (docs/upstream.md, History)', () => {
  it('allows exactly 30 days', () => {
    const range = resolveHistoryRange(custom('2026-10-01T00:00:00Z', '2026-10-31T00:00:00Z'), 0);
    expect(range.ok).toBe(true);
  });

  it('refuses 30 days and 1 s, saying why', () => {
    const range = resolveHistoryRange(custom('2026-10-01T00:00:00Z', '2026-10-31T00:00:01Z'), 0);
    expect(range).toEqual({ ok: false, problem: expect.stringContaining('30 days 1 s') });
    expect(range.ok ? '' : range.problem).toMatch(/at most 30 days/);
  });

  it('refuses an end before the start', () => {
    expect(resolveHistoryRange(custom('2026-10-02T00:00:00Z', '2026-10-01T00:00:00Z'), 0).ok).toBe(
      false,
    );
  });

  it('resolves the 30-day preset to exactly 30 days ending at the next minute', () => {
    const nowMs = Date.parse('2026-11-21T01:00:30Z');
    const range = resolveHistoryRange({ ...DEFAULT_HISTORY_SEARCH, range: '30d' }, nowMs);
    expect(range.ok && range.endMs - range.startMs).toBe(30 * DAY_MS);
    expect(range.ok && range.query.endTime).toBe('2026-11-21T01:01:00Z');
  });

  it('reads a shared link and falls back to defaults for bad values', () => {
    const search = parseHistorySearch(
      new URLSearchParams('range=custom&from=2026-10-01T00:00:00Z&to=nope&status=cancelled&page=x'),
    );
    expect(search).toMatchObject({ range: 'custom', from: '2026-10-01T00:00:00Z', to: undefined });
    expect(search).toMatchObject({ status: 'cancelled', page: 1 });
  });
});

describe('custom ranges from the date-time fields', () => {
  // The fields turn the site's wall clock into instants; the range is measured in real time.
  it('Europe/Berlin: 30 calendar days over the autumn change are 30 days 1 h, refused', () => {
    // 2026-10-10 00:00 to 2026-11-09 00:00 on Berlin's clock.
    const result = customRangeFromFields('2026-10-09T22:00:00Z', '2026-11-08T23:00:00Z');
    expect(result).toEqual({ ok: false, problem: expect.stringContaining('30 days 1 h') });
  });

  it('Europe/Berlin: 30 calendar days over the spring change are 29 days 23 h, allowed', () => {
    const result = customRangeFromFields('2026-03-14T23:00:00Z', '2026-04-13T22:00:00Z');
    expect(result).toEqual({ ok: true, from: '2026-03-14T23:00:00Z', to: '2026-04-13T22:00:00Z' });
  });

  it('asks for each end while its field is empty or partly typed', () => {
    expect(customRangeFromFields('', '2026-04-13T22:00:00Z')).toEqual({
      ok: false,
      problem: 'Enter the start as a date and a time.',
    });
    expect(customRangeFromFields('2026-04-13T22:00:00Z', '')).toEqual({
      ok: false,
      problem: 'Enter the end as a date and a time.',
    });
  });

  it('refuses an end before the start', () => {
    expect(customRangeFromFields('2026-04-13T22:00:00Z', '2026-04-13T21:00:00Z')).toEqual({
      ok: false,
      problem: 'The end must be after the start.',
    });
  });
});
