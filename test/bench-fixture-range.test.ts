/**
 * The range the bench puts its distinct commands in (bench/lib/fixture.ts): whatever the time of
 * day, it is one history range the BFF has not read when the bench asks for it, apart from the
 * range holding now and the one holding the 20 bench commands, so the BFF learns the commands at
 * once rather than at its open-command pace.
 */
import { describe, expect, it } from 'vitest';
import { MAX_HISTORY_RANGE_MS } from '#domain/history.ts';
import { slotOf } from '#domain/refresh-policy.ts';
import { distinctCommandsRange } from '../bench/lib/fixture.ts';

const HOUR_MS = 3_600_000;

describe('the distinct commands range', () => {
  // Every 37 minutes of two history ranges, so each lies in turn near and far from a range's end.
  const stepMs = 37 * 60_000;
  const nows = Array.from(
    { length: Math.ceil((2 * MAX_HISTORY_RANGE_MS) / stepMs) },
    (_, i) => Date.UTC(2026, 10, 1) + i * stepMs,
  );

  it('is one whole history range after now and after the bench commands', () => {
    for (const nowMs of nows) {
      const range = distinctCommandsRange(nowMs);
      const benchCommandsEndMs = Math.ceil(nowMs / HOUR_MS) * HOUR_MS + 78 * HOUR_MS;
      expect(range.endMs - range.startMs).toBe(MAX_HISTORY_RANGE_MS);
      expect(slotOf(range.startMs)).toBe(range.startMs);
      expect(range.startMs).toBeGreaterThan(slotOf(nowMs));
      expect(range.startMs).toBeGreaterThanOrEqual(benchCommandsEndMs);
    }
  });
});
