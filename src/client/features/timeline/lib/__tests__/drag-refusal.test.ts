import { describe, expect, it } from 'vitest';
import { dragRefusal } from '../drag-refusal.ts';
import { DeviceOverlapIndex } from '../overlap-index.ts';

const NOW = 1_000_000;
const index = new DeviceOverlapIndex([
  { id: 'cmd_a', startMs: NOW + 1000, endMs: NOW + 2000, status: 'received' },
]);

describe('dragRefusal', () => {
  it('accepts a future window that only touches an active command', () => {
    expect(dragRefusal({ startMs: NOW + 2000, endMs: NOW + 3000 }, NOW, index)).toBeNull();
  });

  it('refuses a window starting in the past', () => {
    expect(dragRefusal({ startMs: NOW - 1, endMs: NOW + 500 }, NOW, index)).toEqual({
      kind: 'past',
    });
  });

  it('refuses an overlap and names the conflicting command', () => {
    expect(dragRefusal({ startMs: NOW + 1500, endMs: NOW + 2500 }, NOW, index)).toMatchObject({
      kind: 'overlap',
      conflict: { id: 'cmd_a' },
    });
  });

  it('does not count the command being replaced', () => {
    expect(dragRefusal({ startMs: NOW + 1500, endMs: NOW + 2500 }, NOW, index, 'cmd_a')).toBeNull();
  });

  it('refuses an empty window', () => {
    expect(dragRefusal({ startMs: NOW + 10, endMs: NOW + 10 }, NOW, index)).toEqual({
      kind: 'empty',
    });
  });
});
