import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '../../domain/command.ts';
import { historyRangeSlots } from '../../domain/history.ts';
import {
  reconcileSubmission,
  type ReadHistory,
  type UnsettledSubmission,
} from '../ledger/reconcile.ts';

const window = { startTime: '2026-05-01T11:00:00Z', endTime: '2026-05-01T12:00:00Z' };
const powerControl = { targetBatteryPowerW: -3000 };

/** A command of batch `batchCommandId` on `deviceId`, same window and power control as above. */
function batchRecord(batchCommandId: string, deviceId: string): StatusRecord {
  return {
    id: `cmd_${batchCommandId}_${deviceId}`,
    deviceId,
    batchCommandId,
    ...window,
    powerControl,
    status: 'received',
    receivedAt: '2026-05-01T10:00:00Z',
  } as StatusRecord;
}

/** A history in which each device has the records listed for it, in that order. */
function upstreamWith(records: StatusRecord[]): ReadHistory {
  return (deviceId) => Promise.resolve(records.filter((record) => record.deviceId === deviceId));
}

const batchIntent = (deviceIds: string[]): UnsettledSubmission => ({
  deviceIds,
  ...window,
  powerControl,
  batch: true,
});
const nothingKnown = () => Promise.resolve(new Set<string>());

describe('reconciling an unknown batch submission from the history', () => {
  it('settles with the one batch that covers every device, not with commands of an overlapping batch', async () => {
    // Batch B (BAT-2..4) comes first in the histories of BAT-2 and BAT-3.
    const upstream = upstreamWith([
      batchRecord('B', 'BAT-2'),
      batchRecord('B', 'BAT-3'),
      batchRecord('B', 'BAT-4'),
      batchRecord('A', 'BAT-1'),
      batchRecord('A', 'BAT-2'),
      batchRecord('A', 'BAT-3'),
    ]);
    const result = await reconcileSubmission(
      upstream,
      batchIntent(['BAT-1', 'BAT-2', 'BAT-3']),
      nothingKnown,
    );
    expect(result).toEqual({
      found: true,
      batchCommandId: 'A',
      commands: [
        { deviceId: 'BAT-1', id: 'cmd_A_BAT-1' },
        { deviceId: 'BAT-2', id: 'cmd_A_BAT-2' },
        { deviceId: 'BAT-3', id: 'cmd_A_BAT-3' },
      ],
    });
  });

  it('is ambiguous when two whole batches fit, and settles with neither', async () => {
    const upstream = upstreamWith(
      ['A', 'B'].flatMap((batch) => ['BAT-1', 'BAT-2'].map((d) => batchRecord(batch, d))),
    );
    const result = await reconcileSubmission(
      upstream,
      batchIntent(['BAT-1', 'BAT-2']),
      nothingKnown,
    );
    expect(result).toEqual({ found: 'ambiguous', batchCommandIds: ['A', 'B'] });
  });

  it('finds nothing when the only matching batch covers some of the devices', async () => {
    const upstream = upstreamWith([batchRecord('B', 'BAT-2'), batchRecord('B', 'BAT-3')]);
    const result = await reconcileSubmission(
      upstream,
      batchIntent(['BAT-1', 'BAT-2', 'BAT-3']),
      nothingKnown,
    );
    expect(result).toEqual({ found: false });
  });

  it('leaves out a batch whose command another ledger entry already holds', async () => {
    const upstream = upstreamWith(
      ['A', 'B'].flatMap((batch) => ['BAT-1', 'BAT-2'].map((d) => batchRecord(batch, d))),
    );
    const result = await reconcileSubmission(
      upstream,
      batchIntent(['BAT-1', 'BAT-2']),
      (deviceId) => Promise.resolve(new Set(deviceId === 'BAT-2' ? ['cmd_A_BAT-2'] : [])),
    );
    expect(result).toMatchObject({ found: true, batchCommandId: 'B' });
  });
});

describe('the history range reconciliation reads', () => {
  it('is the 30-day history slot of the window start, shared with every other view', async () => {
    const ranges: { startTime: string; endTime: string }[] = [];
    const longWindow = { startTime: '2026-05-01T11:00:00Z', endTime: '2026-06-20T11:00:00Z' };
    await reconcileSubmission(
      (_deviceId, range) => {
        ranges.push(range);
        return Promise.resolve([]);
      },
      { deviceIds: ['BAT-1'], ...longWindow, powerControl, batch: false },
      nothingKnown,
    );
    const [slot] = historyRangeSlots(
      Date.parse(longWindow.startTime),
      Date.parse(longWindow.endTime),
    );
    expect(ranges).toEqual([
      {
        startTime: new Date(slot?.startMs ?? 0).toISOString(),
        endTime: new Date(slot?.endMs ?? 0).toISOString(),
      },
    ]);
  });
});
