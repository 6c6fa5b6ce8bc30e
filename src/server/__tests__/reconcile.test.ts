import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import {
  CLOCK_ALLOWANCE_MS,
  findSubmittedCommands,
  type ReadHistory,
  type UnsettledSubmission,
} from '../ledger/reconcile.ts';

const window = { startTime: '2026-05-01T11:00:00Z', endTime: '2026-05-01T12:00:00Z' };
const powerControl = { targetBatteryPowerW: -3000 };
const SENT_MS = Date.parse('2026-05-01T10:00:00Z');

/** A command on `deviceId` with the window and power control above, received at `receivedAt`. */
function record(id: string, deviceId: string, receivedAt = '2026-05-01T10:00:01Z'): StatusRecord {
  return { id, deviceId, ...window, powerControl, status: 'received', receivedAt };
}

/** A history in which each device has the records listed for it. */
function historyOf(records: StatusRecord[]): ReadHistory {
  return (deviceId) => Promise.resolve(records.filter((r) => r.deviceId === deviceId));
}

const batch = (deviceIds: string[]): UnsettledSubmission => ({
  deviceIds,
  ...window,
  powerControl,
  batch: true,
});
const nothingKnown = () => Promise.resolve(new Set<string>());
const idsOf = (found: Map<string, StatusRecord>) =>
  Object.fromEntries([...found].map(([deviceId, r]) => [deviceId, r.id]));

describe("finding a submission's device commands in the histories (no batch IDs on records)", () => {
  it('finds each device its command with the same window and power control', async () => {
    const { found, unread } = await findSubmittedCommands(
      historyOf([record('c1', 'BAT-1'), record('c2', 'BAT-2')]),
      batch(['BAT-1', 'BAT-2', 'BAT-3']),
      SENT_MS,
      nothingKnown,
    );
    expect(idsOf(found)).toEqual({ 'BAT-1': 'c1', 'BAT-2': 'c2' });
    expect(unread).toEqual([]);
  });

  it('passes over another window, another power control, and commands received before the batch', async () => {
    const { found } = await findSubmittedCommands(
      historyOf([
        { ...record('other-window', 'BAT-1'), endTime: '2026-05-01T12:30:00Z' },
        { ...record('other-control', 'BAT-1'), powerControl: { targetBatteryPowerW: 1 } },
        record('earlier', 'BAT-1', new Date(SENT_MS - CLOCK_ALLOWANCE_MS - 1000).toISOString()),
      ]),
      batch(['BAT-1']),
      SENT_MS,
      nothingKnown,
    );
    expect(found.size).toBe(0);
  });

  it('leaves out commands other ledger entries hold, and takes the one received closest to the batch', async () => {
    const { found } = await findSubmittedCommands(
      historyOf([
        record('taken', 'BAT-1', '2026-05-01T10:00:00Z'),
        record('late', 'BAT-1', '2026-05-01T10:30:00Z'),
        record('close', 'BAT-1', '2026-05-01T10:00:05Z'),
      ]),
      batch(['BAT-1']),
      SENT_MS,
      (deviceId) => Promise.resolve(new Set(deviceId === 'BAT-1' ? ['taken'] : [])),
    );
    expect(idsOf(found)).toEqual({ 'BAT-1': 'close' });
  });

  it('reads only the devices asked about, a few at a time, within one 30-day slot', async () => {
    const asked: string[] = [];
    const ranges = new Set<string>();
    let inFlight = 0;
    let most = 0;
    const read: ReadHistory = async (deviceId, range) => {
      asked.push(deviceId);
      ranges.add(`${range.startTime} ${range.endTime}`);
      inFlight += 1;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      inFlight -= 1;
      return [];
    };
    const devices = Array.from({ length: 10 }, (_, i) => `BAT-${i}`);
    await findSubmittedCommands(read, batch(devices), SENT_MS, nothingKnown, devices.slice(2), 3);
    expect(asked.sort()).toEqual(devices.slice(2).sort());
    expect(most).toBeLessThanOrEqual(3);
    expect(ranges.size).toBe(1);
  });

  it("settles a batch from one device's command though another history cannot be read", async () => {
    const readable = historyOf([record('c2', 'BAT-2')]);
    const { found, unread } = await findSubmittedCommands(
      (deviceId, range) =>
        deviceId === 'BAT-1' ? Promise.reject(new Error('unreadable')) : readable(deviceId, range),
      batch(['BAT-1', 'BAT-2', 'BAT-3']),
      SENT_MS,
      nothingKnown,
    );
    expect(idsOf(found)).toEqual({ 'BAT-2': 'c2' });
    expect(unread).toEqual(['BAT-1']);
  });

  it('fails when nothing was found and a history could not be read: that device may hold it', async () => {
    const readable = historyOf([]);
    await expect(
      findSubmittedCommands(
        (deviceId, range) =>
          deviceId === 'BAT-3'
            ? Promise.reject(new Error('unreadable'))
            : readable(deviceId, range),
        batch(['BAT-1', 'BAT-2', 'BAT-3']),
        SENT_MS,
        nothingKnown,
      ),
    ).rejects.toThrow('unreadable');
  });

  it('fails when a history cannot be read', async () => {
    await expect(
      findSubmittedCommands(
        () => Promise.reject(new Error('unreadable')),
        batch(['BAT-1']),
        SENT_MS,
        nothingKnown,
      ),
    ).rejects.toThrow('unreadable');
  });
});
