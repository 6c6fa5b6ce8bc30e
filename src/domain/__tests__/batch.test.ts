import { describe, expect, it } from 'vitest';
import type { CommandStatus } from '../command.ts';
import { endedBeforeUnbind, unboundBatchDevices } from '../batch.ts';

describe('unboundBatchDevices', () => {
  const last: Record<string, CommandStatus> = {
    'BAT-1': 'received',
    'BAT-2': 'executing',
    'BAT-3': 'completed',
    'BAT-4': 'cancelled',
  };
  const lastStatusOf = (deviceId: string) => {
    const status = last[deviceId];
    return (
      status && {
        status,
        cancelReason: status === 'cancelled' ? ('deviceFault' as const) : undefined,
      }
    );
  };

  it('ends the devices of an unbound site whose command is waiting, executing or never found, in the order sent', () => {
    expect(
      unboundBatchDevices(
        ['BAT-5', 'BAT-2', 'BAT-1', 'BAT-6'],
        new Set(['BAT-1', 'BAT-2', 'BAT-5']),
        lastStatusOf,
      ),
    ).toEqual([
      { deviceId: 'BAT-5' },
      { deviceId: 'BAT-2', lastStatus: 'executing' },
      { deviceId: 'BAT-1', lastStatus: 'received' },
    ]);
  });

  it('keeps a command that completed or was cancelled before the unbind as it ended, with its reason', () => {
    const ended = unboundBatchDevices(
      ['BAT-3', 'BAT-4'],
      new Set(['BAT-3', 'BAT-4']),
      lastStatusOf,
    );
    expect(ended).toEqual([
      { deviceId: 'BAT-3', lastStatus: 'completed' },
      { deviceId: 'BAT-4', lastStatus: 'cancelled', lastCancelReason: 'deviceFault' },
    ]);
    expect(ended.map(endedBeforeUnbind)).toEqual([true, true]);
    expect(endedBeforeUnbind({ deviceId: 'BAT-1', lastStatus: 'received' })).toBe(false);
    expect(endedBeforeUnbind({ deviceId: 'BAT-5' })).toBe(false);
  });
});
