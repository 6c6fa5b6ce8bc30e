import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '../../../../../domain/command.ts';
import { replaceCommand, restoreCommand, type ReplaceCalls } from '../replace-sequence.ts';

const old: StatusRecord = {
  id: 'cmd_old',
  deviceId: 'BAT-1',
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-11-21T10:00:00Z',
  endTime: '2026-11-21T11:00:00Z',
  status: 'received',
  receivedAt: '2026-11-21T09:00:00Z',
};
const next = {
  ...restoreCommand(old),
  startTime: '2026-11-21T12:00:00Z',
  endTime: '2026-11-21T13:00:00Z',
};

function fakeCalls(overrides: Partial<ReplaceCalls> = {}): ReplaceCalls & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    cancel: async () => {
      log.push('cancel');
      return { ...old, status: 'received' };
    },
    status: async () => {
      log.push('status');
      return { ...old, status: 'cancelled', cancelReason: 'manuallyCancel' };
    },
    submit: async () => {
      log.push('submit');
      return { id: 'cmd_new', message: 'accepted', timestamp: '2026-11-21T09:30:00Z' };
    },
    pause: async () => {},
    ...overrides,
  };
}

describe('replaceCommand', () => {
  it('cancels, waits until cancelled, then submits, reporting each step', async () => {
    const calls = fakeCalls();
    const steps: string[] = [];
    const outcome = await replaceCommand(old, next, calls, (step) => steps.push(step));
    expect(outcome).toMatchObject({ ok: true, submitted: { id: 'cmd_new' } });
    expect(calls.log).toEqual(['cancel', 'status', 'submit']);
    expect(steps).toEqual(['cancelling', 'waiting', 'submitting']);
  });

  it('does not submit when the cancel is refused, and the old command stays', async () => {
    const calls = fakeCalls({
      cancel: async () => {
        throw new Error('not_cancellable');
      },
    });
    const outcome = await replaceCommand(old, next, calls);
    expect(outcome).toMatchObject({ ok: false, failedStep: 'cancelling', oldCancelled: false });
  });

  it('says the old command is already cancelled when the new submission is refused', async () => {
    const calls = fakeCalls({
      cancel: async () => ({ ...old, status: 'cancelled' }),
      submit: async () => {
        throw new Error('window_overlap');
      },
    });
    const outcome = await replaceCommand(old, next, calls);
    expect(outcome).toMatchObject({ ok: false, failedStep: 'submitting', oldCancelled: true });
    expect(restoreCommand(old)).toEqual({
      powerControl: old.powerControl,
      startTime: old.startTime,
      endTime: old.endTime,
    });
  });

  it('gives up waiting after a bounded number of checks', async () => {
    const calls = fakeCalls({ status: async () => ({ ...old, status: 'executing' }) });
    const outcome = await replaceCommand(old, next, calls);
    expect(outcome).toMatchObject({ ok: false, failedStep: 'waiting', oldCancelled: false });
  });
});
