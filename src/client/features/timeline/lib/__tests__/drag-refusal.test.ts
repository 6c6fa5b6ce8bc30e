import { describe, expect, it } from 'vitest';
import { dragRefusal } from '../drag-refusal.ts';
import { EDIT_LEAD_TIME_MS } from '../edit-lock.ts';
import { DeviceOverlapIndex } from '../overlap-index.ts';

const NOW = 1_000_000;
const HOUR_MS = 3_600_000;
const index = new DeviceOverlapIndex([
  { id: 'cmd_a', startMs: NOW + HOUR_MS, endMs: NOW + 2 * HOUR_MS, status: 'received' },
]);

describe('dragRefusal', () => {
  it('accepts a future window that only touches an active command', () => {
    expect(dragRefusal({ startMs: NOW + 2 * HOUR_MS, endMs: NOW + 3 * HOUR_MS }, NOW, index)).toBe(
      null,
    );
  });

  it('refuses a window starting in the past', () => {
    expect(dragRefusal({ startMs: NOW - 1, endMs: NOW + HOUR_MS }, NOW, index)).toEqual({
      kind: 'past',
    });
  });

  it('refuses a window starting within the lead time, and accepts one starting at its end', () => {
    expect(
      dragRefusal({ startMs: NOW + EDIT_LEAD_TIME_MS - 1, endMs: NOW + HOUR_MS / 2 }, NOW, index),
    ).toEqual({ kind: 'soon' });
    expect(
      dragRefusal({ startMs: NOW + EDIT_LEAD_TIME_MS, endMs: NOW + HOUR_MS / 2 }, NOW, index),
    ).toBeNull();
  });

  it('refuses an overlap and names the conflicting command', () => {
    expect(
      dragRefusal({ startMs: NOW + 1.5 * HOUR_MS, endMs: NOW + 2.5 * HOUR_MS }, NOW, index),
    ).toMatchObject({ kind: 'overlap', conflict: { id: 'cmd_a' } });
  });

  it('does not count the command being replaced', () => {
    expect(
      dragRefusal(
        { startMs: NOW + 1.5 * HOUR_MS, endMs: NOW + 2.5 * HOUR_MS },
        NOW,
        index,
        'cmd_a',
      ),
    ).toBeNull();
  });

  it('refuses an empty window', () => {
    expect(dragRefusal({ startMs: NOW + HOUR_MS, endMs: NOW + HOUR_MS }, NOW, index)).toEqual({
      kind: 'empty',
    });
  });
});
