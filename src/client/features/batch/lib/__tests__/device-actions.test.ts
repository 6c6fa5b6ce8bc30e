import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import { batchDevicesCsv } from '../batch-csv.ts';
import {
  batchDeviceWords,
  hasFailed,
  planCancel,
  planResend,
  resendWindow,
  type BatchDeviceView,
} from '../device-actions.ts';

const window = { startTime: '2026-11-21T11:00:00Z', endTime: '2026-11-21T12:00:00Z' };
const record = (deviceId: string, more: Partial<StatusRecord>): StatusRecord => ({
  ...window,
  powerControl: { targetBatteryPowerW: 3000 },
  id: `cmd_${deviceId}`,
  deviceId,
  status: 'received',
  receivedAt: '2026-11-21T10:00:00Z',
  ...more,
});
const found = (deviceId: string, more?: Partial<StatusRecord>): BatchDeviceView => ({
  device: { kind: 'found', deviceId, commandId: `cmd_${deviceId}` },
  record: more ? record(deviceId, more) : undefined,
});
const views: BatchDeviceView[] = [
  found('BAT-1', { status: 'executing' }),
  found('BAT-2', { status: 'received' }),
  found('BAT-3', { status: 'cancelled', cancelReason: 'timeWindowOverlap' }),
  found('BAT-4', { status: 'completed' }),
  found('BAT-5', { status: 'cancelled', cancelReason: 'manuallyCancel' }),
  found('BAT-6'),
  { device: { kind: 'confirming', deviceId: 'BAT-7' } },
  { device: { kind: 'notFound', deviceId: 'BAT-8' } },
];
const all = new Set(views.map((v) => v.device.deviceId));

describe('planCancel', () => {
  it('cancels the chosen commands still received, executing or not read yet, and names the rest with why', () => {
    const plan = planCancel(views, all);
    expect(plan.toCancel).toEqual([
      { deviceId: 'BAT-1', commandId: 'cmd_BAT-1' },
      { deviceId: 'BAT-2', commandId: 'cmd_BAT-2' },
      { deviceId: 'BAT-6', commandId: 'cmd_BAT-6' },
    ]);
    expect(plan.untouched).toEqual([
      { deviceId: 'BAT-3', why: 'its command is already cancelled' },
      { deviceId: 'BAT-4', why: 'its command is already completed' },
      { deviceId: 'BAT-5', why: 'its command is already cancelled' },
      { deviceId: 'BAT-7', why: 'its command is not confirmed yet' },
      { deviceId: 'BAT-8', why: 'it never got the command' },
    ]);
  });

  it('touches only the chosen devices', () => {
    expect(planCancel(views, new Set(['BAT-2']))).toEqual({
      toCancel: [{ deviceId: 'BAT-2', commandId: 'cmd_BAT-2' }],
      untouched: [],
    });
    expect(planCancel(views, new Set())).toEqual({ toCancel: [], untouched: [] });
  });
});

describe('planResend', () => {
  it('resends to chosen devices the vendor cancelled or that never got the command, not to an operator cancel', () => {
    expect(planResend(views, all)).toEqual(['BAT-3', 'BAT-8']);
    expect(planResend(views, new Set(['BAT-3', 'BAT-5']))).toEqual(['BAT-3']);
    expect(views.filter(hasFailed).map((v) => v.device.deviceId)).toEqual(['BAT-3', 'BAT-8']);
  });
});

describe('resendWindow', () => {
  const startMs = Date.parse(window.startTime);
  it("keeps the batch's window while it starts later than the lead", () => {
    expect(resendWindow(window, startMs - 10 * 60_000, 0)).toEqual({
      startMs,
      endMs: Date.parse(window.endTime),
    });
  });
  it('moves a window that has begun to the fallback start, keeping its length', () => {
    const fallback = startMs + 30 * 60_000;
    expect(resendWindow(window, startMs + 60_000, fallback)).toEqual({
      startMs: fallback,
      endMs: fallback + 3_600_000,
    });
  });
});

describe('batchDeviceWords and its CSV', () => {
  const failure = () => 'It had already completed.';
  it("words each row as the page shows it, with the last cancel's outcome", () => {
    expect(
      batchDeviceWords(
        views[0] as BatchDeviceView,
        {
          deviceId: 'BAT-1',
          commandId: 'cmd_BAT-1',
          success: true,
          status: 'cancelled',
        },
        failure,
      ),
    ).toEqual({
      device: 'BAT-1',
      command: 'cmd_BAT-1',
      status: 'Executing',
      reason: '',
      outcome: 'Cancelled',
    });
    expect(batchDeviceWords(views[2] as BatchDeviceView, undefined, failure).reason).toBe(
      'Its window overlapped another command of the same device',
    );
    expect(
      batchDeviceWords(
        views[3] as BatchDeviceView,
        { deviceId: 'BAT-4', commandId: 'cmd_BAT-4', success: false, status: 'completed' },
        failure,
      ).outcome,
    ).toBe('Not cancelled: It had already completed.');
    expect(batchDeviceWords(views[5] as BatchDeviceView, undefined, failure, 'No answer.')).toEqual(
      expect.objectContaining({
        status: 'Not read yet',
        reason: 'Could not read its status: No answer.',
      }),
    );
    expect(batchDeviceWords(views[6] as BatchDeviceView, undefined, failure).command).toBe(
      'Not confirmed yet',
    );
  });

  it('writes the same words under the headings the page uses, formulas escaped', () => {
    const csv = batchDevicesCsv([
      batchDeviceWords(views[2] as BatchDeviceView, undefined, failure),
      { device: 'BAT-9', command: '=cmd', status: 'Cancelled', reason: '', outcome: '' },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'Device,Command,Status,Reason,Last cancel',
      'BAT-3,cmd_BAT-3,Cancelled,Its window overlapped another command of the same device,',
      `BAT-9,"'=cmd",Cancelled,,`,
    ]);
  });
});
