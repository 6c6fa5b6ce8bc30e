import { describe, expect, it } from 'vitest';
import {
  FleetJobRequestSchema,
  abortRuleCounts,
  breaksAbortRule,
  deviceOutcomeOfRecord,
  expectedSendingEndMs,
  progressOf,
  progressOverTime,
  splitIntoBatches,
  withSiteBinding,
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
      unbound: 0,
      failed: 1,
    });
  });

  it('counts the devices of a site unbound since apart, as final: neither waiting nor failed', () => {
    const progress = progressOf([
      {
        devices: [
          { deviceId: 'A', commandId: 'c1', status: 'received', unbound: true },
          { deviceId: 'B', commandId: 'c2', status: 'executing', unbound: true },
          { deviceId: 'C', unbound: true },
          { deviceId: 'D', commandId: 'c4', status: 'completed' },
        ],
      },
    ]);
    expect(progress).toEqual({
      total: 4,
      sent: 3,
      received: 0,
      executing: 0,
      completed: 1,
      cancelled: {},
      unbound: 3,
      failed: 0,
    });
  });
});

describe('withSiteBinding', () => {
  const nowMs = Date.parse('2030-01-01T17:30:00Z');
  const live = { deviceId: 'A', commandId: 'c1', status: 'executing' as const };

  it('ends a device whose command is not final as no longer followed once its site is unbound', () => {
    const ended = withSiteBinding(live, true, nowMs);
    expect(ended).toEqual({ ...live, unbound: true, outcomeAt: '2030-01-01T17:30:00.000Z' });
    // Read again later, it keeps when it ended.
    expect(withSiteBinding(ended, true, nowMs + 60_000)).toEqual(ended);
  });

  it('keeps an outcome reached before the unbind: a final command or a failure', () => {
    const completed = {
      deviceId: 'A',
      commandId: 'c1',
      status: 'completed' as const,
      outcomeAt: '2030-01-01T17:10:00.000Z',
    };
    expect(withSiteBinding(completed, true, nowMs)).toEqual(completed);
    const failed = { deviceId: 'B', failure: 'refused', outcomeAt: '2030-01-01T17:10:00.000Z' };
    expect(withSiteBinding(failed, true, nowMs)).toEqual(failed);
  });

  it('follows the device again once its site is bound again', () => {
    expect(withSiteBinding(withSiteBinding(live, true, nowMs), false, nowMs)).toEqual(live);
    expect(withSiteBinding(live, false, nowMs)).toEqual(live);
  });
});

describe('abortRuleCounts', () => {
  it('counts failures and cancellations, never a device whose site was unbound', () => {
    expect(
      abortRuleCounts([
        {
          state: 'sent',
          devices: [
            { deviceId: 'A', commandId: 'c1', status: 'received', unbound: true },
            { deviceId: 'B', unbound: true },
            { deviceId: 'C', commandId: 'c3', status: 'cancelled', cancelReason: 'deviceFault' },
            { deviceId: 'D', commandId: 'c4', status: 'completed' },
          ],
        },
        { state: 'failed', devices: [{ deviceId: 'E', failure: 'refused' }] },
        { state: 'pending', devices: [{ deviceId: 'F' }] },
      ]),
    ).toEqual({ sentSoFar: 5, failedOrCancelled: 2 });
  });
});

describe('FleetJobRequestSchema', () => {
  /** A request of site S-1's devices with `fields` over it. */
  const siteRequest = (fields: object = {}) => ({
    selection: { siteIds: ['S-1'] },
    command,
    ...fields,
  });

  it('fills a rollout left out with one that protects the fleet: 10 batches a minute, stop at 10%', () => {
    const parsed = FleetJobRequestSchema.parse(siteRequest());
    expect(parsed.rollout).toEqual({ batchSize: 50, batchesPerMinute: 10, abortPercent: 10 });
    // A field left out of a rollout given is filled the same way.
    expect(FleetJobRequestSchema.parse(siteRequest({ rollout: { batchSize: 5 } })).rollout).toEqual(
      { batchSize: 5, batchesPerMinute: 10, abortPercent: 10 },
    );
    expect(parsed.selection).toEqual({ siteIds: ['S-1'], models: [], deviceIds: [] });
  });

  it('refuses an empty selection, a batch over 50 and unknown fields', () => {
    expect(FleetJobRequestSchema.safeParse({ selection: {}, command }).success).toBe(false);
    expect(
      FleetJobRequestSchema.safeParse(siteRequest({ rollout: { batchSize: 51 } })).success,
    ).toBe(false);
    expect(FleetJobRequestSchema.safeParse(siteRequest({ extra: 1 })).success).toBe(false);
  });
});

describe('deviceOutcomeOfRecord', () => {
  const NOW = Date.parse('2030-01-01T18:00:00Z');
  it('keeps when a final command ended, from the record, else now', () => {
    expect(
      deviceOutcomeOfRecord({ status: 'completed', completedAt: '2030-01-01T17:30:00Z' }, NOW),
    ).toEqual({ status: 'completed', outcomeAt: '2030-01-01T17:30:00Z' });
    expect(
      deviceOutcomeOfRecord(
        { status: 'cancelled', cancelReason: 'deviceFault', cancelledAt: '2030-01-01T17:10:00Z' },
        NOW,
      ),
    ).toEqual({
      status: 'cancelled',
      cancelReason: 'deviceFault',
      outcomeAt: '2030-01-01T17:10:00Z',
    });
    expect(deviceOutcomeOfRecord({ status: 'completed' }, NOW).outcomeAt).toBe(
      '2030-01-01T18:00:00.000Z',
    );
  });
  it('gives a live command no outcome time', () => {
    expect(deviceOutcomeOfRecord({ status: 'executing' }, NOW)).toEqual({ status: 'executing' });
  });
});

describe('progressOverTime', () => {
  const at = (hhmm: string) => `2030-01-01T${hhmm}:00Z`;
  const job = {
    createdAt: at('16:00'),
    updatedAt: at('16:50'),
    state: 'running' as const,
    batches: [
      {
        index: 0,
        state: 'sent' as const,
        attempts: 1,
        sentAt: at('16:01'),
        devices: [
          {
            deviceId: 'D-1',
            commandId: 'c1',
            status: 'completed' as const,
            outcomeAt: at('16:30'),
          },
          {
            deviceId: 'D-2',
            commandId: 'c2',
            status: 'cancelled' as const,
            cancelReason: 'deviceFault' as const,
            outcomeAt: at('16:10'),
          },
          // Recorded before outcome times were kept: counted at the job's last change.
          { deviceId: 'D-3', commandId: 'c3', status: 'completed' as const },
        ],
      },
      {
        index: 1,
        state: 'failed' as const,
        attempts: 3,
        devices: [{ deviceId: 'D-4', failure: 'refused', outcomeAt: at('16:02') }],
      },
      { index: 2, state: 'pending' as const, attempts: 0, devices: [{ deviceId: 'D-5' }] },
    ],
  };

  it('counts each outcome cumulatively at its own time, from zero at the start to now', () => {
    const samples = progressOverTime(job, Date.parse(at('17:00')));
    expect(samples).toEqual([
      { atMs: Date.parse(at('16:00')), sent: 0, completed: 0, cancelled: 0, failed: 0 },
      { atMs: Date.parse(at('16:01')), sent: 3, completed: 0, cancelled: 0, failed: 0 },
      { atMs: Date.parse(at('16:02')), sent: 3, completed: 0, cancelled: 0, failed: 1 },
      { atMs: Date.parse(at('16:10')), sent: 3, completed: 0, cancelled: 1, failed: 1 },
      { atMs: Date.parse(at('16:30')), sent: 3, completed: 1, cancelled: 1, failed: 1 },
      { atMs: Date.parse(at('16:50')), sent: 3, completed: 2, cancelled: 1, failed: 1 },
      { atMs: Date.parse(at('17:00')), sent: 3, completed: 2, cancelled: 1, failed: 1 },
    ]);
  });

  it('ends at the last change once the job is over', () => {
    const samples = progressOverTime({ ...job, state: 'completed' }, Date.parse(at('17:00')));
    expect(samples.at(-1)?.atMs).toBe(Date.parse(at('16:50')));
  });
});

describe('expectedSendingEndMs', () => {
  const NOW = Date.parse('2030-01-01T12:00:00Z');
  const VENDOR = { limit: 2, windowMs: 60_000 };
  const pending = (...deviceIds: string[]) => ({
    state: 'pending' as const,
    devices: deviceIds.map((deviceId) => ({ deviceId })),
  });
  const sent = (secondsAgo: number, ...deviceIds: string[]) => ({
    state: 'sent' as const,
    sentAt: new Date(NOW - secondsAgo * 1000).toISOString(),
    devices: deviceIds.map((deviceId) => ({ deviceId })),
  });
  const job = (
    batchesPerMinute: number,
    batches: Parameters<typeof expectedSendingEndMs>[0]['batches'],
  ) => ({
    state: 'running' as const,
    rollout: { batchesPerMinute },
    batches,
  });

  it("goes one interval of the rollout's rate apart after the last batch sent", () => {
    const running = job(2, [sent(10, 'A'), pending('B'), pending('C'), pending('D')]);
    // The next goes 30 s after the one sent 10 s ago, then two more 30 s apart.
    expect(expectedSendingEndMs(running, NOW, VENDOR)).toBe(NOW + 20_000 + 60_000);
    expect(expectedSendingEndMs(job(2, [pending('B')]), NOW, VENDOR)).toBe(NOW);
  });

  it("waits for a device's budget when it is in more batches than its calls of a minute", () => {
    // A dispatch plan's three rows on one device at 60 batches a minute: the third waits for the
    // first's call to leave the device's rolling minute.
    const plan = job(60, [pending('A'), pending('A'), pending('A')]);
    expect(expectedSendingEndMs(plan, NOW, VENDOR)).toBe(NOW + 60_000);
    // A call this job made 10 s ago counts too, under a limit of one.
    const afterOne = job(60, [sent(10, 'A'), pending('A')]);
    expect(expectedSendingEndMs(afterOne, NOW, { limit: 1, windowMs: 60_000 })).toBe(NOW + 50_000);
  });

  it('says nothing of a job that is not running or has nothing left to send', () => {
    expect(expectedSendingEndMs({ ...job(2, [pending('A')]), state: 'paused' }, NOW, VENDOR)).toBe(
      undefined,
    );
    expect(expectedSendingEndMs(job(2, [sent(5, 'A')]), NOW, VENDOR)).toBe(undefined);
  });
});
