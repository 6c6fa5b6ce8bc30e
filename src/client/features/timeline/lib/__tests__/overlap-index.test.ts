import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { findActiveOverlap } from '#domain/overlap.ts';
import { COMMAND_STATUSES } from '#domain/command.ts';
import { DeviceOverlapIndex, type IndexedWindow } from '../overlap-index.ts';

const win = (id: string, startMs: number, endMs: number, status: IndexedWindow['status']) => ({
  id,
  startMs,
  endMs,
  status,
});

function asWire(window: IndexedWindow) {
  return {
    ...window,
    startTime: new Date(window.startMs).toISOString(),
    endTime: new Date(window.endMs).toISOString(),
  };
}

describe('DeviceOverlapIndex', () => {
  const index = new DeviceOverlapIndex([
    win('a', 1000, 2000, 'received'),
    win('b', 3000, 4000, 'executing'),
    win('c', 5000, 6000, 'completed'),
    win('d', 7000, 8000, 'cancelled'),
  ]);

  it('finds the active command a window overlaps', () => {
    expect(index.findOverlap({ startMs: 1500, endMs: 1600 })?.id).toBe('a');
    expect(index.findOverlap({ startMs: 2500, endMs: 3500 })?.id).toBe('b');
  });

  it('allows touching windows (half-open)', () => {
    expect(index.findOverlap({ startMs: 2000, endMs: 3000 })).toBeUndefined();
    expect(index.findOverlap({ startMs: 0, endMs: 1000 })).toBeUndefined();
  });

  it('ignores final commands and the command being replaced', () => {
    expect(index.findOverlap({ startMs: 5000, endMs: 8000 })).toBeUndefined();
    expect(index.findOverlap({ startMs: 1500, endMs: 1600 }, 'a')).toBeUndefined();
    expect(index.size).toBe(2);
  });

  it('agrees with the domain rule findActiveOverlap on any data', () => {
    const windowArb = fc
      .tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 200 }))
      .map(([startMs, lengthMs]) => ({ startMs, endMs: startMs + lengthMs }));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(windowArb, fc.constantFrom(...COMMAND_STATUSES)), { maxLength: 40 }),
        windowArb,
        (entries, probe) => {
          const windows = entries.map(([w, status], i) => win(`c${i}`, w.startMs, w.endMs, status));
          const found = new DeviceOverlapIndex(windows).findOverlap(probe);
          const expected = findActiveOverlap(probe, windows.map(asWire));
          expect(found === undefined).toBe(expected === undefined);
          if (found) expect(found.startMs < probe.endMs && probe.startMs < found.endMs).toBe(true);
        },
      ),
    );
  });
});
