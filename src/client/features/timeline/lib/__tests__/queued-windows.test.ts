import { describe, expect, it } from 'vitest';
import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';
import { barAccessibleName, toBar } from '../bars.ts';
import { dragRefusal } from '../drag-refusal.ts';
import { ghostAccessibleName } from '../ghosts.ts';
import { overlapIndexWithQueued, queuedWindowsOf, withQueuedCancels } from '../queued-windows.ts';
import { refusalWords } from '../refusal-words.ts';

const NOW = '2026-11-21T09:00:00Z';
const DEVICE = 'BAT-EU-001-A';
const OTHER = 'BAT-EU-001-B';
const BERLIN = () => 'Europe/Berlin';
const COMMAND = {
  powerControl: { targetBatteryPowerW: 2000 },
  startTime: '2026-11-21T15:00:00Z',
  endTime: '2026-11-21T16:00:00Z',
};

const change = (over: Partial<QueuedChangeStatus>): QueuedChangeStatus => ({
  id: 'chg_1',
  kind: 'submit',
  state: 'queued',
  deviceIds: [DEVICE],
  steps: [],
  createdAt: NOW,
  updatedAt: NOW,
  ...over,
});

const SUBMIT = change({
  steps: [
    {
      call: 'submit',
      deviceIds: [DEVICE],
      state: 'waiting',
      plannedAt: '2026-11-21T09:00:40Z',
      command: COMMAND,
    },
  ],
});

/** A replace of cmd_1 whose cancel and submission both wait. */
const REPLACE = change({
  id: 'chg_2',
  kind: 'replace',
  steps: [
    {
      call: 'cancel',
      deviceIds: [DEVICE],
      state: 'waiting',
      plannedAt: '2026-11-21T09:01:05Z',
      commandId: RECEIVED_RECORD.id,
    },
    {
      call: 'submit',
      deviceIds: [DEVICE],
      state: 'waiting',
      plannedAt: '2026-11-21T09:01:35Z',
      command: { ...COMMAND, startTime: '2026-11-21T17:00:00Z', endTime: '2026-11-21T18:00:00Z' },
    },
  ],
});

describe('queuedWindowsOf', () => {
  it('draws a queued submission as a ghost named with when it goes on the site clock', () => {
    const { ghostsByDevice, cancelsByCommand } = queuedWindowsOf([SUBMIT], BERLIN);
    expect(cancelsByCommand.size).toBe(0);
    expect(ghostsByDevice.get(DEVICE)).toEqual([
      {
        id: `ghost-queued-chg_1-${DEVICE}`,
        startMs: Date.parse(COMMAND.startTime),
        endMs: Date.parse(COMMAND.endTime),
        name: 'Queued, goes at 10:00:40',
        powerControl: COMMAND.powerControl,
        queued: {
          changeId: 'chg_1',
          goesAtMs: Date.parse('2026-11-21T09:00:40Z'),
          withdrawable: true,
        },
      },
    ]);
  });

  it("draws a replace's new window and marks the command it cancels, each when its step goes", () => {
    const { ghostsByDevice, cancelsByCommand } = queuedWindowsOf([REPLACE], () => 'UTC');
    expect(ghostsByDevice.get(DEVICE)?.map((ghost) => ghost.name)).toEqual([
      'Queued, goes at 09:01:35',
    ]);
    expect(cancelsByCommand.get(RECEIVED_RECORD.id)).toEqual({
      changeId: 'chg_2',
      goesAtMs: Date.parse('2026-11-21T09:01:05Z'),
      withdrawable: true,
    });
  });

  it('leaves out steps already sent; a change being sent can no longer be withdrawn', () => {
    const [cancel, submit] = REPLACE.steps;
    if (!cancel || !submit) throw new Error('a replace has two steps');
    const sending = change({
      ...REPLACE,
      state: 'sending',
      steps: [{ ...cancel, state: 'sent' }, submit],
    });
    const { ghostsByDevice, cancelsByCommand } = queuedWindowsOf([sending], BERLIN);
    expect(cancelsByCommand.size).toBe(0);
    expect(ghostsByDevice.get(DEVICE)?.[0]?.queued?.withdrawable).toBe(false);
  });

  it('draws nothing of a change once it was sent, withdrawn or failed', () => {
    for (const state of ['sent', 'withdrawn', 'failed'] as const) {
      const { ghostsByDevice, cancelsByCommand } = queuedWindowsOf(
        [
          { ...REPLACE, state },
          { ...SUBMIT, state },
        ],
        BERLIN,
      );
      expect(ghostsByDevice.size + cancelsByCommand.size).toBe(0);
    }
  });

  it("draws a batch's window on each of its devices, sorted by start per device", () => {
    const batch = change({
      id: 'chg_3',
      kind: 'batch',
      deviceIds: [DEVICE, OTHER],
      steps: [
        {
          call: 'batch',
          deviceIds: [DEVICE, OTHER],
          state: 'waiting',
          plannedAt: '2026-11-21T09:02:00Z',
          command: {
            ...COMMAND,
            startTime: '2026-11-21T12:00:00Z',
            endTime: '2026-11-21T13:00:00Z',
          },
        },
      ],
    });
    const { ghostsByDevice } = queuedWindowsOf([SUBMIT, batch], BERLIN);
    expect(ghostsByDevice.get(DEVICE)?.map((ghost) => ghost.id)).toEqual([
      `ghost-queued-chg_3-${DEVICE}`,
      `ghost-queued-chg_1-${DEVICE}`,
    ]);
    expect(ghostsByDevice.get(OTHER)?.map((ghost) => ghost.id)).toEqual([
      `ghost-queued-chg_3-${OTHER}`,
    ]);
  });
});

describe('queued windows in words', () => {
  it('names a queued window with when it goes and why it cannot be moved', () => {
    const ghost = queuedWindowsOf([SUBMIT], BERLIN).ghostsByDevice.get(DEVICE)?.[0];
    if (!ghost) throw new Error('a ghost is drawn');
    expect(ghostAccessibleName('Hall A', ghost, 'Europe/Berlin')).toBe(
      'Hall A: queued change, not sent yet, 2 kW discharge, Sat 21 Nov 16:00–17:00 Europe/Berlin, goes at 10:00:40 site time (09:00:40 UTC); it cannot be moved or resized until it is sent: withdraw it (its menu, or Queued changes) and schedule the window again.',
    );
  });

  it("marks the bar of a command whose cancel is queued, and leaves other devices' bars as they were", () => {
    const bars = [toBar(RECEIVED_RECORD)];
    const others = [toBar({ ...RECEIVED_RECORD, id: 'cmd_9', deviceId: OTHER })];
    const { cancelsByCommand } = queuedWindowsOf([REPLACE], BERLIN);
    const shown = withQueuedCancels(
      new Map([
        [DEVICE, bars],
        [OTHER, others],
      ]),
      cancelsByCommand,
      BERLIN,
    );
    const [marked] = shown.get(DEVICE) ?? [];
    expect(marked?.label).toMatch(/ · cancel queued, goes at 10:01:05$/);
    expect(marked && barAccessibleName('Hall A', marked, 'Europe/Berlin')).toMatch(
      /Received \(pending\), cancel queued, goes at 10:01:05 site time \(09:01:05 UTC\)$/,
    );
    expect(shown.get(OTHER)).toBe(others);
  });
});

describe('overlap with a queued window', () => {
  const nowMs = Date.parse(NOW);
  const ghosts = queuedWindowsOf([SUBMIT], BERLIN).ghostsByDevice.get(DEVICE) ?? [];
  const bars = [toBar(RECEIVED_RECORD)];
  const index = overlapIndexWithQueued(bars, ghosts);

  it('holds the active commands and the queued windows, built once per data version', () => {
    expect(index.size).toBe(2);
    expect(overlapIndexWithQueued(bars, ghosts)).toBe(index);
    expect(overlapIndexWithQueued([], ghosts).size).toBe(1);
  });

  it('refuses a window drawn over a queued one before anything is sent, saying so', () => {
    const refusal = dragRefusal(
      { startMs: Date.parse('2026-11-21T15:30:00Z'), endMs: Date.parse('2026-11-21T16:30:00Z') },
      nowMs,
      index,
    );
    expect(refusal?.kind).toBe('overlap');
    expect(refusal && refusalWords(refusal, 'Europe/Berlin')).toBe(
      'Refused: overlaps a queued change that goes at 10:00:40 site time (09:00:40 UTC) (Sat 21 Nov 16:00–17:00 Europe/Berlin). Withdraw it first, or choose a window that only touches it.',
    );
  });

  it('allows a window that only touches the queued one, and still refuses one over a command', () => {
    expect(
      dragRefusal(
        { startMs: Date.parse('2026-11-21T16:00:00Z'), endMs: Date.parse('2026-11-21T17:00:00Z') },
        nowMs,
        index,
      ),
    ).toBeNull();
    const overCommand = dragRefusal(
      { startMs: Date.parse('2026-11-21T13:30:00Z'), endMs: Date.parse('2026-11-21T13:45:00Z') },
      nowMs,
      index,
    );
    expect(overCommand?.kind === 'overlap' && overCommand.conflict.id).toBe(RECEIVED_RECORD.id);
  });
});
