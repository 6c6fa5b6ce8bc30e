import { describe, expect, it } from 'vitest';
import { MAX_HISTORY_RANGE_MS } from '../history.ts';
import {
  DEFAULT_REFRESH_SETTINGS,
  nextReadOf,
  liveSlotsOf,
  slotOf,
  slotsReadAfter,
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

  it('reads first the open range read longest ago (one never read before all), whatever its place in time', () => {
    const slot = slotOf(T);
    const next = slot + MAX_HISTORY_RANGE_MS;
    const waiting = { status: 'received', startMs: T + 30 * MIN, endMs: T + 60 * MIN } as const;
    const batch = { sentAtMs: T, startMs: next + 10 * MIN, endMs: next + 40 * MIN };
    const asked = [slot - MAX_HISTORY_RANGE_MS];
    const state = (slotsRead: number[]) =>
      device({
        openCommands: [waiting],
        confirmations: [batch],
        requestedSlots: asked,
        slotsRead,
      });
    // The next range was never read: it goes before the present one, read at the backfill.
    expect(slotsToRead(state([slot]), T)).toEqual([next, slot, ...asked]);
    expect(slotsToRead(state([slot, next]), T)).toEqual([slot, next, ...asked]);
    expect(slotsToRead(state([next, slot]), T)).toEqual([next, slot, ...asked]);
    // Ranges read that are no longer open change nothing.
    expect(slotsToRead(state([next, slot - 5 * MAX_HISTORY_RANGE_MS, slot]), T)).toEqual([
      next,
      slot,
      ...asked,
    ]);
  });

  it('visits every open range in turn when each read carries only one range', () => {
    const slots = [0, 1, 2].map((i) => slotOf(T) + i * MAX_HISTORY_RANGE_MS);
    const openCommands = slots.map(
      (slot) => ({ status: 'received', startMs: slot + MIN, endMs: slot + 2 * MIN }) as const,
    );
    let slotsRead = [slots[0] as number];
    const visited: number[] = [];
    for (let read = 0; read < 6; read += 1) {
      // A read the budget lets take one call: the first range to read, to its last page.
      const [first] = slotsToRead(device({ openCommands, slotsRead }), T);
      if (first === undefined) throw new Error('a device with open commands has ranges to read');
      visited.push(first);
      slotsRead = slotsReadAfter(slotsRead, [first]);
    }
    expect(visited).toEqual([slots[1], slots[2], slots[0], slots[1], slots[2], slots[0]]);
  });
});

describe('which history ranges were read, longest ago first', () => {
  it('moves the ranges a read finished to the end, in the order read, and keeps the rest', () => {
    const [a, b, c, d] = [0, 1, 2, 3].map((i) => i * MAX_HISTORY_RANGE_MS) as [
      number,
      number,
      number,
      number,
    ];
    expect(slotsReadAfter([a, b, c], [a])).toEqual([b, c, a]);
    expect(slotsReadAfter([a, b, c], [d, b])).toEqual([a, c, d, b]);
    expect(slotsReadAfter([a, b], [])).toEqual([a, b]);
    expect(slotsReadAfter([], [c, c])).toEqual([c]);
  });
});
