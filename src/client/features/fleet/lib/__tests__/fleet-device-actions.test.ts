import { describe, expect, it } from 'vitest';
import { testFleetJob } from '#client/testing/fleet-jobs.ts';
import { fleetFailedDevices, planFleetCancel } from '../fleet-device-actions.ts';

const BEFORE_END_MS = Date.parse('2030-01-01T18:00:00Z');
const job = testFleetJob({
  state: 'completed',
  batches: [
    {
      index: 0,
      state: 'sent',
      batchCommandId: 'B-1',
      sentAt: '2030-01-01T12:00:01.000Z',
      attempts: 1,
      devices: [
        { deviceId: 'D-1', commandId: 'C-1', status: 'executing' },
        { deviceId: 'D-2', commandId: 'C-2', status: 'cancelled', cancelReason: 'deviceFault' },
        { deviceId: 'D-3', commandId: 'C-3', status: 'cancelled', cancelReason: 'manuallyCancel' },
        { deviceId: 'D-4', commandId: 'C-4' },
        { deviceId: 'D-5' },
      ],
    },
    { index: 1, state: 'failed', attempts: 3, devices: [{ deviceId: 'D-6', failure: 'Refused' }] },
  ],
});
const all = new Set(['D-1', 'D-2', 'D-3', 'D-4', 'D-5', 'D-6']);

describe('planFleetCancel', () => {
  it("cancels the chosen devices' commands still running or not read, and says why it leaves the rest", () => {
    expect(planFleetCancel(job, all, BEFORE_END_MS)).toEqual({
      toCancel: [
        { deviceId: 'D-1', commandId: 'C-1' },
        { deviceId: 'D-4', commandId: 'C-4' },
      ],
      untouched: [
        { deviceId: 'D-2', why: 'its command is already cancelled' },
        { deviceId: 'D-3', why: 'its command is already cancelled' },
        { deviceId: 'D-5', why: 'its command is not confirmed yet' },
        { deviceId: 'D-6', why: 'it has no command' },
      ],
    });
    expect(planFleetCancel(job, new Set(['D-1']), BEFORE_END_MS).untouched).toEqual([]);
  });
});

describe('fleetFailedDevices', () => {
  it('names devices the vendor cancelled, that the BFF gave up on or never found; not an operator cancel', () => {
    expect(fleetFailedDevices(job, BEFORE_END_MS)).toEqual(['D-2', 'D-6']);
    expect(fleetFailedDevices(job, Date.parse('2031-01-01T00:00:00Z'))).toEqual([
      'D-2',
      'D-5',
      'D-6',
    ]);
  });
});
