import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMELINE_SEARCH,
  firstViewOf,
  parseTimelineSearch,
  timelineSearchParams,
  viewSearch,
} from '../timeline-search.ts';

const HOUR_MS = 3_600_000;

describe('timeline search params', () => {
  it('reads every field of a shared link and writes it back the same', () => {
    const query =
      'q=hall&hide=PLANT-EU-002%2CPLANT-EU-100&utc=1&cancelled=hide&snap=15&from=2026-11-25T21%3A00%3A00Z&span=6h';
    const search = parseTimelineSearch(new URLSearchParams(query));
    expect(search).toEqual({
      q: 'hall',
      hiddenSiteIds: ['PLANT-EU-002', 'PLANT-EU-100'],
      utc: true,
      showCancelled: false,
      snapMinutes: 15,
      from: '2026-11-25T21:00:00Z',
      spanMs: 6 * HOUR_MS,
    });
    expect(timelineSearchParams(search).toString()).toBe(query);
  });

  it('leaves defaults out, and a stale or hand-edited value falls back field by field', () => {
    expect(timelineSearchParams(DEFAULT_TIMELINE_SEARCH).toString()).toBe('');
    expect(
      parseTimelineSearch(
        new URLSearchParams('snap=7&utc=yes&from=yesterday&span=1y&cancelled=no&q=a'),
      ),
    ).toEqual({ ...DEFAULT_TIMELINE_SEARCH, q: 'a' });
    // Below the free zoom's 30 minutes.
    expect(parseTimelineSearch(new URLSearchParams('span=10m')).spanMs).toBeUndefined();
  });
});

describe('the view in the search', () => {
  it('keeps a moved view to the second and the minute, and opens on it again', () => {
    const moved = viewSearch({
      startMs: Date.parse('2026-11-25T21:00:00.400Z'),
      spanMs: 90 * 60_000 + 12,
    });
    expect(moved).toEqual({ from: '2026-11-25T21:00:00Z', spanMs: 90 * 60_000 });
    expect(timelineSearchParams({ ...DEFAULT_TIMELINE_SEARCH, ...moved }).get('span')).toBe('90m');
    // The view places its first instant a quarter from the left: `from` is its left edge.
    expect(firstViewOf({ ...DEFAULT_TIMELINE_SEARCH, ...moved }, 0)).toEqual({
      atMs: Date.parse('2026-11-25T21:00:00Z') + (90 * 60_000) / 4,
      spanMs: 90 * 60_000,
    });
    expect(firstViewOf(DEFAULT_TIMELINE_SEARCH, 1234)).toEqual({
      atMs: 1234,
      spanMs: 24 * HOUR_MS,
    });
  });
});
