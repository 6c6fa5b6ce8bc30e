import { describe, expect, it } from 'vitest';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';
import { toBar } from '../bars.ts';
import { EDIT_LEAD_TIME_MS, editLock, editLockWords } from '../edit-lock.ts';

// The record runs 13:00–14:00 UTC (14:00–15:00 in Berlin).
const START = Date.parse(RECEIVED_RECORD.startTime);
const RECEIVED = toBar(RECEIVED_RECORD);

describe('editLock', () => {
  it('leaves a received window editable until the lead time before its start', () => {
    expect(editLock(RECEIVED, START - EDIT_LEAD_TIME_MS)).toBeNull();
    expect(editLock(RECEIVED, START - EDIT_LEAD_TIME_MS + 1)).toEqual({
      kind: 'soon',
      startMs: START,
    });
  });

  it('locks a window that has started, even while its record still reads received', () => {
    expect(editLock(RECEIVED, START)).toEqual({ kind: 'started', startMs: START, running: false });
    expect(editLock({ ...RECEIVED, status: 'executing' }, START - 3_600_000)).toEqual({
      kind: 'started',
      startMs: START,
      running: true,
    });
  });

  it('locks a window whose cancel is queued, saying when the cancel goes and what undoes it', () => {
    const goesAtMs = Date.parse('2026-11-21T09:00:30Z');
    const lock = editLock({ ...RECEIVED, queuedCancel: { goesAtMs } }, START - 3_600_000);
    expect(lock).toEqual({ kind: 'cancelQueued', goesAtMs });
    expect(lock && editLockWords('cmd_1', lock, 'Europe/Berlin')).toBe(
      "Command cmd_1 is being cancelled: its cancel is queued and goes at 10:00:30. Withdraw the cancel (the window's menu, or Queued changes) to change its window instead.",
    );
  });

  it('locks a final window whatever the time', () => {
    expect(editLock({ ...RECEIVED, status: 'cancelled' }, 0)).toEqual({
      kind: 'final',
      status: 'cancelled',
    });
  });
});

describe('editLockWords', () => {
  it('says why on the site clock and what can be done instead', () => {
    const soon = editLock(RECEIVED, START - 60_000);
    expect(soon && editLockWords('cmd_1', soon, 'Europe/Berlin')).toBe(
      'Command cmd_1 starts at 14:00, within 2 minutes of now: a change could not reach the device before it starts. Cancel it if it must not run.',
    );
    const started = editLock({ ...RECEIVED, status: 'executing' }, START);
    expect(started && editLockWords('cmd_1', started, 'UTC')).toMatch(
      /^Command cmd_1 started at 13:00 and is running: .*Cancel it if it must stop\.$/,
    );
    const due = editLock(RECEIVED, START + 60_000);
    expect(due && editLockWords('cmd_1', due, 'UTC')).toBe(
      'Command cmd_1 was due to start at 13:00: it can no longer be moved. Cancel it if it must not run.',
    );
    const final = editLock({ ...RECEIVED, status: 'completed' }, START);
    expect(final && editLockWords('cmd_1', final, 'UTC')).toMatch(/Duplicate it/);
  });
});
