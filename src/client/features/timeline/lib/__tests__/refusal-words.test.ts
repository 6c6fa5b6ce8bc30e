import { describe, expect, it } from 'vitest';
import { toBar } from '../bars.ts';
import { DeviceOverlapIndex } from '../overlap-index.ts';
import { refusalWords } from '../refusal-words.ts';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const record = RECEIVED_RECORD;

describe('refusalWords', () => {
  it('names the conflicting command and its window on the site clock', () => {
    const index = new DeviceOverlapIndex([toBar(record)]);
    const conflict = index.findOverlap({
      startMs: NOW + 3.5 * 3_600_000,
      endMs: NOW + 5 * 3_600_000,
    });
    expect(conflict).toBeDefined();
    if (conflict)
      expect(refusalWords({ kind: 'overlap', conflict }, 'Europe/Berlin')).toBe(
        'Refused: overlaps command cmd_1 (received, Sat 21 Nov 14:00–15:00 Europe/Berlin). Windows may touch but not overlap.',
      );
    expect(refusalWords({ kind: 'past' }, 'UTC')).toMatch(/in the past/);
  });
});
