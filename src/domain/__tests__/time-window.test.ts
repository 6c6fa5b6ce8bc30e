import { describe, expect, it } from 'vitest';
import { windowsOverlap, TimeWindowSchema } from '../time-window.ts';
import { findActiveOverlap } from '../overlap.ts';

const w = (startMs: number, endMs: number) => ({ startMs, endMs });

describe('windowsOverlap (half-open windows)', () => {
  it('treats touching windows as not overlapping', () => {
    expect(windowsOverlap(w(0, 10), w(10, 20))).toBe(false);
    expect(windowsOverlap(w(10, 20), w(0, 10))).toBe(false);
  });
  it('detects partial, containing and identical overlaps', () => {
    expect(windowsOverlap(w(0, 10), w(9, 20))).toBe(true);
    expect(windowsOverlap(w(0, 30), w(10, 20))).toBe(true);
    expect(windowsOverlap(w(10, 20), w(0, 30))).toBe(true);
    expect(windowsOverlap(w(5, 6), w(5, 6))).toBe(true);
  });
  it('finds no overlap between disjoint windows', () => {
    expect(windowsOverlap(w(0, 10), w(11, 20))).toBe(false);
  });
});

describe('TimeWindowSchema', () => {
  it('refuses an end that is not after the start, naming endTime', () => {
    const result = TimeWindowSchema.safeParse({
      startTime: '2026-11-21T02:00:00Z',
      endTime: '2026-11-21T02:00:00Z',
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['endTime']);
  });
  it('refuses a timestamp with an offset instead of UTC', () => {
    const result = TimeWindowSchema.safeParse({
      startTime: '2026-11-21T02:00:00+01:00',
      endTime: '2026-11-21T03:00:00Z',
    });
    expect(result.success).toBe(false);
  });
});

describe('findActiveOverlap', () => {
  const commands = [
    {
      id: 'a',
      status: 'completed' as const,
      startTime: '2026-11-21T00:00:00Z',
      endTime: '2026-11-21T02:00:00Z',
    },
    {
      id: 'b',
      status: 'received' as const,
      startTime: '2026-11-21T02:00:00Z',
      endTime: '2026-11-21T03:00:00Z',
    },
    {
      id: 'c',
      status: 'cancelled' as const,
      startTime: '2026-11-21T03:00:00Z',
      endTime: '2026-11-21T04:00:00Z',
    },
  ];
  const ms = (iso: string) => Date.parse(iso);

  it('ignores final commands and returns the active one that overlaps', () => {
    const window = w(ms('2026-11-21T01:00:00Z'), ms('2026-11-21T02:30:00Z'));
    expect(findActiveOverlap(window, commands)?.id).toBe('b');
  });
  it('allows a window touching an active one', () => {
    const window = w(ms('2026-11-21T03:00:00Z'), ms('2026-11-21T03:30:00Z'));
    expect(findActiveOverlap(window, commands)).toBeUndefined();
  });
});
