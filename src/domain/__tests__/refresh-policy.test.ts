import { describe, expect, it } from 'vitest';
import { MAX_HISTORY_RANGE_MS } from '../history.ts';
import {
  DEFAULT_REFRESH_SETTINGS,
  nextReadOf,
  liveSlotsOf,
  slotOf,
  slotsToRead,
  type DeviceRefreshState,
} from '../refresh-policy.ts';

const T = Date.parse('2026-05-01T10:00:00Z');
const MIN = 60_000;
const { allowanceMs, openEveryMs, idleEveryMs, retryMs } = DEFAULT_REFRESH_SETTINGS;

const device = (state: Partial<DeviceRefreshState>): DeviceRefreshState => ({
  lastReadAtMs: T,
  openCommands: [],
  confirmations: [],
  requestedSlots: [],
  ...state,
});

describe('when a device is read next', () => {
  it('is read at once when never read (its backfill) or when a page asked for history', () => {
    expect(nextReadOf(device({ lastReadAtMs: undefined }), T)).toEqual({
      atMs: T,
      reason: 'backfill',
    });
    expect(
      nextReadOf(device({ requestedSlots: [slotOf(T) - MAX_HISTORY_RANGE_MS] }), T + 1),
    ).toEqual({ atMs: T + 1, reason: 'requestedHistory' });
  });

  it('lets a read due within the allowance serve as the backfill: one call, not two', () => {
    const batch = { sentAtMs: T, startMs: T + 10 * MIN, endMs: T + 70 * MIN };
    expect(nextReadOf(device({ lastReadAtMs: undefined, confirmations: [batch] }), T)).toEqual({
      atMs: T + allowanceMs,
      reason: 'batchConfirmation',
    });
    const waiting = { status: 'received', startMs: T + 3 * MIN, endMs: T + 70 * MIN } as const;
    expect(nextReadOf(device({ lastReadAtMs: undefined, openCommands: [waiting] }), T)).toEqual({
      atMs: T,
      reason: 'backfill',
    });
  });

  it('reads a waiting command just after its start, then after the offline minute, then after its end', () => {
    const waiting = { status: 'received', startMs: T + 3 * MIN, endMs: T + 70 * MIN } as const;
    expect(nextReadOf(device({ openCommands: [waiting] }), T)).toEqual({
      atMs: T + 3 * MIN + allowanceMs,
      reason: 'windowStart',
    });
    // Read just after the start and still waiting (the device is offline): the end of its minute.
    const afterStart = T + 3 * MIN + allowanceMs;
    expect(
      nextReadOf(device({ lastReadAtMs: afterStart, openCommands: [waiting] }), afterStart),
    ).toEqual({ atMs: T + 4 * MIN + allowanceMs, reason: 'startExpiry' });
    const executing = { ...waiting, status: 'executing' } as const;
    expect(
      nextReadOf(device({ lastReadAtMs: afterStart, openCommands: [executing] }), afterStart),
    ).toEqual({ atMs: afterStart + openEveryMs, reason: 'openCommands' });
    const nearEnd = T + 69 * MIN;
    expect(
      nextReadOf(device({ lastReadAtMs: nearEnd, openCommands: [executing] }), nearEnd),
    ).toEqual({ atMs: T + 70 * MIN + allowanceMs, reason: 'windowEnd' });
  });

  it('reads again a little later when the vendor is late with a command past its end', () => {
    const late = T + 71 * MIN;
    const executing = { status: 'executing', startMs: T, endMs: T + 70 * MIN } as const;
    expect(nextReadOf(device({ lastReadAtMs: late, openCommands: [executing] }), late)).toEqual({
      atMs: late + retryMs,
      reason: 'stillOpen',
    });
  });

  it('looks for a batch command just after the batch, then now and then until its window has ended', () => {
    const batch = { sentAtMs: T, startMs: T + 5 * MIN, endMs: T + 20 * MIN };
    expect(nextReadOf(device({ lastReadAtMs: T - MIN, confirmations: [batch] }), T)).toEqual({
      atMs: T + allowanceMs,
      reason: 'batchConfirmation',
    });
    const read = T + allowanceMs;
    expect(nextReadOf(device({ lastReadAtMs: read, confirmations: [batch] }), read)).toEqual({
      atMs: read + retryMs,
      reason: 'batchConfirmation',
    });
    const nearEnd = T + 20 * MIN;
    expect(nextReadOf(device({ lastReadAtMs: nearEnd, confirmations: [batch] }), nearEnd)).toEqual({
      atMs: T + 20 * MIN + allowanceMs,
      reason: 'batchConfirmation',
    });
  });

  it('reads a device without open commands only every idle interval, and never when that is off', () => {
    expect(nextReadOf(device({}), T)).toEqual({ atMs: T + idleEveryMs, reason: 'idle' });
    expect(nextReadOf(device({}), T, { ...DEFAULT_REFRESH_SETTINGS, idleEveryMs: 0 })).toBe(
      undefined,
    );
  });

  it('takes a last read later than now as made now, when the upstream clock went back', () => {
    // Read 9 minutes ahead, then the clock went back (the sandbox's reset): a batch sent now is
    // looked for just after it, not after a read that would come 9 minutes on.
    const batch = { sentAtMs: T, startMs: T + 5 * MIN, endMs: T + 20 * MIN };
    expect(nextReadOf(device({ lastReadAtMs: T + 9 * MIN, confirmations: [batch] }), T)).toEqual({
      atMs: T + allowanceMs,
      reason: 'batchConfirmation',
    });
  });

  it('never answers a time before now', () => {
    const overdue = nextReadOf(device({ lastReadAtMs: T - 2 * idleEveryMs }), T);
    expect(overdue).toEqual({ atMs: T, reason: 'idle' });
  });
});

describe('which history ranges one read covers', () => {
  it('the range of the open commands, two when a window crosses a border, else the current one', () => {
    const slot = slotOf(T);
    expect(slotsToRead(device({}), T)).toEqual([slot]);
    const crossing = {
      status: 'received',
      startMs: slot + MAX_HISTORY_RANGE_MS - MIN,
      endMs: slot + MAX_HISTORY_RANGE_MS + MIN,
    } as const;
    expect(slotsToRead(device({ openCommands: [crossing] }), T)).toEqual([
      slot,
      slot + MAX_HISTORY_RANGE_MS,
    ]);
    expect(slotsToRead(device({ requestedSlots: [slot - MAX_HISTORY_RANGE_MS] }), T)).toEqual([
      slot - MAX_HISTORY_RANGE_MS,
    ]);
    expect(
      slotsToRead(
        device({ lastReadAtMs: undefined, requestedSlots: [slot - MAX_HISTORY_RANGE_MS] }),
        T,
      ),
    ).toEqual([slot, slot - MAX_HISTORY_RANGE_MS]);
  });

  it('reads the ranges that move open commands on first, then asked-for history newest first', () => {
    const slot = slotOf(T);
    const open = { status: 'received', startMs: T + MIN, endMs: T + 2 * MIN } as const;
    const asked = [slot - 3 * MAX_HISTORY_RANGE_MS, slot - MAX_HISTORY_RANGE_MS];
    const device_ = device({ openCommands: [open], requestedSlots: asked });
    expect(liveSlotsOf(device_, T)).toEqual([slot]);
    expect(slotsToRead(device_, T)).toEqual([
      slot,
      slot - MAX_HISTORY_RANGE_MS,
      slot - 3 * MAX_HISTORY_RANGE_MS,
    ]);
  });
});
