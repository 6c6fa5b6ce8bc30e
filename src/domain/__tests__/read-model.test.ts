import { describe, expect, it } from 'vitest';
import { changeKindOf, submittedRecord } from '../read-model.ts';

describe('device versions', () => {
  it('count a command not known before and a cancellation', () => {
    expect(changeKindOf(undefined, { status: 'received' })).toBe('commandAdded');
    expect(changeKindOf(undefined, { status: 'completed' })).toBe('commandAdded');
    expect(changeKindOf({ status: 'received' }, { status: 'cancelled' })).toBe('commandCancelled');
    expect(changeKindOf({ status: 'executing' }, { status: 'cancelled' })).toBe('commandCancelled');
  });

  it('do not count the lifecycle going on, or a record read again', () => {
    expect(changeKindOf({ status: 'received' }, { status: 'executing' })).toBeUndefined();
    expect(changeKindOf({ status: 'executing' }, { status: 'completed' })).toBeUndefined();
    expect(changeKindOf({ status: 'received' }, { status: 'completed' })).toBeUndefined();
    expect(changeKindOf({ status: 'received' }, { status: 'received' })).toBeUndefined();
    expect(changeKindOf({ status: 'cancelled' }, { status: 'cancelled' })).toBeUndefined();
  });

  it('know a submission received at the time of its answer', () => {
    const command = {
      powerControl: { targetBatteryPowerW: 2000 },
      startTime: '2026-05-01T11:00:00Z',
      endTime: '2026-05-01T12:00:00Z',
    };
    expect(
      submittedRecord('BAT-1', command, { id: 'cmd_1', timestamp: '2026-05-01T10:00:01Z' }),
    ).toEqual({
      id: 'cmd_1',
      deviceId: 'BAT-1',
      ...command,
      status: 'received',
      receivedAt: '2026-05-01T10:00:01Z',
    });
  });
});
