import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '../../../../../domain/command.ts';
import type { Device } from '../../../../../domain/device.ts';
import type { LedgerEntry } from '../../../../../domain/ledger.ts';
import { batchRecordFromLedger } from '../ledger-batches.ts';
import {
  cancelFailureWords,
  countStatuses,
  splitCancelResults,
  summarizeBatch,
} from '../batch-progress.ts';
import { precheckDevice } from '../precheck.ts';

const device: Device = {
  deviceId: 'BAT-EU-001-C',
  name: 'C',
  model: 'M',
  capabilities: { targetBatteryPowerW: { min: -5000, max: 5000 } },
};
const record = (over: Partial<StatusRecord>): StatusRecord => ({
  id: 'cmd_1',
  deviceId: device.deviceId,
  powerControl: { targetBatteryPowerW: 1000 },
  startTime: '2026-11-21T10:00:00Z',
  endTime: '2026-11-21T11:00:00Z',
  status: 'received',
  receivedAt: '2026-11-21T09:00:00Z',
  ...over,
});
const window = {
  startMs: Date.parse('2026-11-21T10:30:00Z'),
  endMs: Date.parse('2026-11-21T11:30:00Z'),
};

describe('precheckDevice', () => {
  it('flags an active command whose window overlaps', () => {
    const findings = precheckDevice(device, { properties: ['targetBatteryPowerW'], window }, [
      record({}),
    ]);
    expect(findings).toEqual([{ kind: 'overlap', command: record({}) }]);
  });

  it('ignores final commands and windows that only touch', () => {
    const touching = { startMs: Date.parse('2026-11-21T11:00:00Z'), endMs: window.endMs };
    expect(precheckDevice(device, { properties: [], window: touching }, [record({})])).toEqual([]);
    expect(
      precheckDevice(device, { properties: [], window }, [record({ status: 'completed' })]),
    ).toEqual([]);
  });

  it('flags requested controls the device lacks, and an offline device', () => {
    const findings = precheckDevice(
      { ...device, online: false },
      { properties: ['targetBatteryPowerW', 'siteExportLimitW'], window: null },
      undefined,
    );
    expect(findings).toEqual([
      { kind: 'notSupported', properties: ['siteExportLimitW'] },
      { kind: 'offline' },
    ]);
  });
});

describe('batch progress', () => {
  it('counts statuses, unread ones apart', () => {
    expect(
      countStatuses([
        record({}),
        record({ status: 'executing' }),
        undefined,
        record({ status: 'cancelled' }),
      ]),
    ).toEqual({ received: 1, executing: 1, completed: 0, cancelled: 1, unknown: 1 });
  });

  it('never calls a batch with cancelled devices a success', () => {
    const base = { received: 0, executing: 0, completed: 0, cancelled: 0, unknown: 0 };
    expect(summarizeBatch({ ...base, completed: 3 }).tone).toBe('success');
    const mixed = summarizeBatch({ ...base, completed: 2, cancelled: 1 });
    expect(mixed).toEqual({
      tone: 'warning',
      words: 'Finished with cancellations: 2 of 3 completed, 1 cancelled.',
    });
    expect(summarizeBatch({ ...base, completed: 2, executing: 1 }).tone).toBe('info');
    expect(summarizeBatch({ ...base, completed: 2, unknown: 1 }).tone).toBe('warning');
  });

  it('splits cancel results and says why each failure failed', () => {
    const ok = { deviceId: 'A', commandId: 'c1', success: true, status: 'cancelled' as const };
    const done = { deviceId: 'B', commandId: 'c2', success: false, status: 'completed' as const };
    const overlapped = {
      deviceId: 'C',
      commandId: 'c3',
      success: false,
      status: 'cancelled' as const,
    };
    const other = {
      deviceId: 'D',
      commandId: 'c4',
      success: false,
      status: 'executing' as const,
      error: { code: 'upstream_unavailable', message: 'Try later.' },
    };
    expect(splitCancelResults([ok, done, other])).toEqual({
      succeeded: [ok],
      failed: [done, other],
    });
    expect(cancelFailureWords(done)).toMatch(/already completed/);
    expect(cancelFailureWords(overlapped, 'timeWindowOverlap')).toMatch(/window overlapped/);
    expect(cancelFailureWords(other)).toBe(
      'Still executing: Try later. You can retry this device alone.',
    );
  });
});

describe('batches from the ledger', () => {
  const entry: LedgerEntry = {
    id: '7',
    kind: 'batch',
    state: 'succeeded',
    region: 'eu',
    clientId: 'demo-eu',
    operatorName: 'Ada',
    batchCommandId: 'batch_1',
    deviceIds: ['BAT-1'],
    request: {
      devices: ['BAT-1'],
      command: {
        powerControl: { targetBatteryPowerW: -2000 },
        startTime: '2026-11-21T10:00:00Z',
        endTime: '2026-11-21T11:00:00Z',
      },
    },
    outcome: { status: 202, commands: [{ deviceId: 'BAT-1', id: 'cmd_1' }] },
    createdAt: '2026-11-21T09:00:00Z',
  };

  it('reads an accepted batch, and nothing out of a failed one', () => {
    expect(batchRecordFromLedger(entry)).toEqual({
      batchCommandId: 'batch_1',
      submittedAt: '2026-11-21T09:00:00Z',
      command: (entry.request as { command: unknown }).command,
      commands: [{ deviceId: 'BAT-1', id: 'cmd_1' }],
      timeZone: 'UTC',
      timeZoneRecorded: false,
      submittedBy: 'Ada',
    });
    expect(batchRecordFromLedger({ ...entry, state: 'failed' })).toBeNull();
    expect(batchRecordFromLedger({ ...entry, request: { devices: [] } })).toBeNull();
  });

  it('shows a batch on the zone the ledger recorded for its site, else in UTC, not the browser zone', () => {
    expect(batchRecordFromLedger({ ...entry, timeZone: 'Europe/Berlin' })).toMatchObject({
      timeZone: 'Europe/Berlin',
      timeZoneRecorded: true,
    });
    expect(batchRecordFromLedger({ ...entry, timeZone: 'Nowhere/Atlantis' })).toMatchObject({
      timeZone: 'UTC',
      timeZoneRecorded: false,
    });
  });
});
