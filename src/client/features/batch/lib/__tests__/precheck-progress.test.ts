import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import type { Device } from '#domain/device.ts';
import type { LedgerEntry } from '#domain/ledger.ts';
import {
  anyConfirming,
  batchDevices,
  batchPath,
  batchRecordFromLedger,
} from '../ledger-batches.ts';
import {
  cancelFailureWords,
  countStatuses,
  noCounts,
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

  it('flags a device the vendor reports faulted, as it does an offline one', () => {
    expect(
      precheckDevice({ ...device, faulted: true }, { properties: [], window: null }, undefined),
    ).toEqual([{ kind: 'faulted' }]);
    expect(
      precheckDevice(
        { ...device, faulted: true, online: false },
        { properties: [], window: null },
        undefined,
      ),
    ).toEqual([{ kind: 'offline' }, { kind: 'faulted' }]);
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
    ).toEqual({
      received: 1,
      executing: 1,
      completed: 0,
      cancelled: 1,
      unknown: 1,
      confirming: 0,
      notFound: 0,
      unbound: 0,
    });
    expect(countStatuses([record({})], { confirming: 2, notFound: 1 })).toMatchObject({
      received: 1,
      confirming: 2,
      notFound: 1,
    });
  });

  it('never calls a batch with cancelled devices a success', () => {
    const base = noCounts();
    expect(summarizeBatch({ ...base, completed: 3 }).tone).toBe('success');
    const mixed = summarizeBatch({ ...base, completed: 2, cancelled: 1 });
    expect(mixed).toEqual({
      tone: 'warning',
      words: 'Finished with cancellations: 2 of 3 completed, 1 cancelled.',
    });
    expect(summarizeBatch({ ...base, completed: 2, executing: 1 }).tone).toBe('info');
    // A device whose site was unbound is final (no longer followed), and no success either.
    expect(summarizeBatch({ ...base, completed: 2, unbound: 1 })).toEqual({
      tone: 'warning',
      words: 'Finished: 2 of 3 completed, 1 no longer followed (site unbound).',
    });
    expect(summarizeBatch({ ...base, completed: 1, received: 1, unbound: 1 }).words).toBe(
      'In progress: 2 of 3 device commands are final.',
    );
    expect(summarizeBatch({ ...base, completed: 2, unknown: 1 }).tone).toBe('warning');
  });

  it('counts devices not confirmed yet and not found, and never calls such a batch finished', () => {
    const base = noCounts();
    expect(summarizeBatch({ ...base, completed: 3, confirming: 2 })).toEqual({
      tone: 'info',
      words: 'In progress: 3 of 5 device commands are final; 2 devices not confirmed yet.',
    });
    expect(summarizeBatch({ ...base, completed: 4, notFound: 1 })).toEqual({
      tone: 'warning',
      words:
        'Finished without 1 device: 4 of 5 completed, 0 cancelled. 1 device had no command in its history: check it before sending again.',
    });
    expect(summarizeBatch({ ...base, executing: 1, notFound: 2 }).tone).toBe('warning');
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
      ledgerId: '7',
      batchCommandId: 'batch_1',
      submittedAt: '2026-11-21T09:00:00Z',
      command: (entry.request as { command: unknown }).command,
      deviceIds: ['BAT-1'],
      commands: [{ deviceId: 'BAT-1', id: 'cmd_1' }],
      unconfirmed: [],
      unbound: [],
      // An entry of an earlier version named every command: confirmed.
      confirmation: 'confirmed',
      siteId: undefined,
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

  it('reads a batch whose commands are still being found, and one without a batch ID', () => {
    const confirming = batchRecordFromLedger({
      ...entry,
      request: { ...(entry.request as object), devices: ['BAT-1', 'BAT-2', 'BAT-3'] },
      outcome: {
        status: 202,
        commands: [{ deviceId: 'BAT-1', id: 'cmd_1' }],
        confirmation: 'confirming',
        unconfirmed: [{ deviceId: 'BAT-2', state: 'notFound' }],
      },
    });
    expect(confirming && batchDevices(confirming)).toEqual([
      { kind: 'found', deviceId: 'BAT-1', commandId: 'cmd_1' },
      { kind: 'notFound', deviceId: 'BAT-2' },
      // Not mentioned either way while the search goes on: not confirmed yet.
      { kind: 'confirming', deviceId: 'BAT-3' },
    ]);
    expect(confirming && batchPath(confirming)).toBe('/batches/batch_1');
    const lost = batchRecordFromLedger({ ...entry, batchCommandId: undefined });
    expect(lost && batchPath(lost)).toBe('/batches/entry/7');
    expect(anyConfirming({ entries: [entry] })).toBe(false);
    expect(
      anyConfirming({
        entries: [{ ...entry, outcome: { commands: [], confirmation: 'confirming' } }],
      }),
    ).toBe(true);
  });
});
