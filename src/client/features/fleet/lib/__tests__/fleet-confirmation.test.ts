import { describe, expect, it } from 'vitest';
import { testFleetJob } from '#client/testing/fleet-jobs.ts';
import {
  countUnconfirmed,
  fleetDeviceConfirmation,
  fleetJobRefetchMs,
} from '../fleet-confirmation.ts';

/** A finished job whose one batch was sent and whose BAT-1 command is not found yet. */
const sent = testFleetJob({
  state: 'completed',
  batches: [
    {
      index: 0,
      state: 'sent',
      sentAt: '2030-01-01T12:00:01.000Z',
      attempts: 1,
      devices: [{ deviceId: 'BAT-1' }, { deviceId: 'BAT-2', commandId: 'CMD-2' }],
    },
  ],
});
const batch = sent.batches[0];
const BEFORE_END_MS = Date.parse('2030-01-01T18:00:00Z');
const AFTER_END_MS = Date.parse('2030-01-01T19:00:00Z');

describe("a fleet job's devices being confirmed", () => {
  it("tells a device's command found, not confirmed yet, or not found once the window ended", () => {
    if (!batch) throw new Error('the job has a batch');
    const [waiting, found] = batch.devices;
    if (!waiting || !found) throw new Error('the batch has two devices');
    expect(fleetDeviceConfirmation(found, batch, sent, BEFORE_END_MS)).toBe('found');
    expect(fleetDeviceConfirmation(waiting, batch, sent, BEFORE_END_MS)).toBe('confirming');
    expect(fleetDeviceConfirmation(waiting, batch, sent, AFTER_END_MS)).toBe('notFound');
    expect(fleetDeviceConfirmation(waiting, { ...batch, state: 'pending' }, sent, 0)).toBe(
      'notSent',
    );
    expect(
      fleetDeviceConfirmation({ ...waiting, failure: 'Refused' }, batch, sent, BEFORE_END_MS),
    ).toBe('failed');
    expect(countUnconfirmed(sent, AFTER_END_MS)).toEqual({ confirming: 0, notFound: 1 });
  });

  it('reads a finished job again only while a device of it is not confirmed yet', () => {
    expect(fleetJobRefetchMs(undefined, 0, 2000)).toBe(2000);
    expect(fleetJobRefetchMs({ ...sent, state: 'running' }, AFTER_END_MS, 2000)).toBe(2000);
    expect(fleetJobRefetchMs(sent, BEFORE_END_MS, 2000)).toBe(5000);
    expect(fleetJobRefetchMs(sent, AFTER_END_MS, 2000)).toBe(false);
  });

  it("reads a finished job again while a device's command is not final, so its outcomes stay live", () => {
    const live = (status: 'executing' | 'completed') =>
      testFleetJob({
        state: 'completed',
        batches: [
          {
            index: 0,
            state: 'sent',
            attempts: 1,
            devices: [{ deviceId: 'BAT-2', commandId: 'CMD-2', status }],
          },
        ],
      });
    expect(fleetJobRefetchMs(live('executing'), AFTER_END_MS, 2000)).toBe(5000);
    expect(fleetJobRefetchMs(live('completed'), AFTER_END_MS, 2000)).toBe(false);
  });
});
