import { describe, expect, it } from 'vitest';
import {
  FleetJobRequestSchema,
  breaksAbortRule,
  progressOf,
  splitIntoBatches,
} from '../fleet-job.ts';

const command = {
  powerControl: { targetBatteryPowerW: 3000 },
  startTime: '2030-01-01T17:00:00Z',
  endTime: '2030-01-01T19:00:00Z',
};

describe('splitIntoBatches', () => {
  it('keeps the order and puts at most the batch size in each batch', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `D-${i}`);
    const batches = splitIntoBatches(ids, 50);
    expect(batches).toHaveLength(20);
    expect(batches.every((b) => b.length === 50)).toBe(true);
    expect(batches.flat()).toEqual(ids);
    expect(splitIntoBatches(['A', 'B', 'C'], 2)).toEqual([['A', 'B'], ['C']]);
  });

  it('refuses a batch size over the 50 devices a batch may hold', () => {
    expect(() => splitIntoBatches(['A'], 51)).toThrow(RangeError);
    expect(() => splitIntoBatches(['A'], 0)).toThrow(RangeError);
  });
});

describe('breaksAbortRule', () => {
  it('breaks only when the share of failed or cancelled devices is over the threshold', () => {
    expect(breaksAbortRule({ sentSoFar: 100, failedOrCancelled: 10 }, 10)).toBe(false);
    expect(breaksAbortRule({ sentSoFar: 100, failedOrCancelled: 11 }, 10)).toBe(true);
    expect(breaksAbortRule({ sentSoFar: 0, failedOrCancelled: 0 }, 0)).toBe(false);
    expect(breaksAbortRule({ sentSoFar: 10, failedOrCancelled: 10 }, 100)).toBe(false);
    expect(breaksAbortRule({ sentSoFar: 10, failedOrCancelled: 1 }, 0)).toBe(true);
  });
});

describe('progressOf', () => {
  it('counts devices by status and cancellation reason, failures apart', () => {
    const progress = progressOf([
      {
        devices: [
          { deviceId: 'A', commandId: 'c1', status: 'received' },
          {
            deviceId: 'B',
            commandId: 'c2',
            status: 'cancelled',
            cancelReason: 'timeWindowOverlap',
          },
          { deviceId: 'C', commandId: 'c3', status: 'completed' },
        ],
      },
      { devices: [{ deviceId: 'D', failure: 'refused' }, { deviceId: 'E' }] },
    ]);
    expect(progress).toEqual({
      total: 5,
      sent: 3,
      received: 1,
      executing: 0,
      completed: 1,
      cancelled: { timeWindowOverlap: 1 },
      failed: 1,
    });
  });
});

describe('FleetJobRequestSchema', () => {
  it('fills the rollout with 50 devices a batch, 60 batches a minute, no abort', () => {
    const parsed = FleetJobRequestSchema.parse({ selection: { siteIds: ['S-1'] }, command });
    expect(parsed.rollout).toEqual({ batchSize: 50, batchesPerMinute: 60, abortPercent: 100 });
    expect(parsed.selection).toEqual({ siteIds: ['S-1'], models: [], deviceIds: [] });
  });

  it('refuses an empty selection, a batch over 50 and unknown fields', () => {
    expect(FleetJobRequestSchema.safeParse({ selection: {}, command }).success).toBe(false);
    expect(
      FleetJobRequestSchema.safeParse({
        selection: { siteIds: ['S-1'] },
        command,
        rollout: { batchSize: 51 },
      }).success,
    ).toBe(false);
    expect(
      FleetJobRequestSchema.safeParse({ selection: { siteIds: ['S-1'] }, command, extra: 1 })
        .success,
    ).toBe(false);
  });
});
