import { describe, expect, it } from 'vitest';
import { historyRangeProblem, historyRangeSlots, MAX_HISTORY_RANGE_MS } from '../history.ts';
import { isEditableStatus } from '../command.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('historyRangeSlots', () => {
  it('covers a window longer than 30 days with every slot it meets, each a valid range', () => {
    const startMs = Date.parse('2026-11-20T00:00:00Z');
    const endMs = startMs + 45 * DAY_MS;
    const slots = historyRangeSlots(startMs, endMs);
    expect(slots.length).toBeGreaterThanOrEqual(2);
    expect(slots[0]?.startMs).toBeLessThanOrEqual(startMs);
    expect(slots.at(-1)?.endMs).toBeGreaterThanOrEqual(endMs);
    for (const [i, slot] of slots.entries()) {
      expect(historyRangeProblem(slot.startMs, slot.endMs)).toBeNull();
      if (i > 0) expect(slot.startMs).toBe(slots[i - 1]?.endMs);
    }
  });

  it('gives the same slot for two windows inside it, and none for an empty span', () => {
    const a = historyRangeSlots(MAX_HISTORY_RANGE_MS + 1, MAX_HISTORY_RANGE_MS + 10);
    const b = historyRangeSlots(MAX_HISTORY_RANGE_MS + DAY_MS, MAX_HISTORY_RANGE_MS + 2 * DAY_MS);
    expect(a).toEqual(b);
    expect(historyRangeSlots(10, 10)).toEqual([]);
  });
});

describe('isEditableStatus', () => {
  it('allows a change only before the command started', () => {
    expect(isEditableStatus('received')).toBe(true);
    expect(isEditableStatus('executing')).toBe(false);
    expect(isEditableStatus('completed')).toBe(false);
    expect(isEditableStatus('cancelled')).toBe(false);
  });
});
