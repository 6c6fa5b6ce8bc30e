import { describe, expect, it } from 'vitest';
import type { Bar } from '../bars.ts';
import {
  changedStatuses,
  createTransitionTracker,
  mixColour,
  STATUS_TRANSITION_MS,
  transitionLook,
  transitionProgress,
} from '../status-transitions.ts';

function bar(id: string, status: Bar['status']): Bar {
  return {
    id,
    startMs: 0,
    endMs: 1000,
    status,
    label: id,
    record: {
      id,
      deviceId: 'BAT-1',
      powerControl: { targetBatteryPowerW: -3000 },
      startTime: '2026-11-21T10:00:00Z',
      endTime: '2026-11-21T11:00:00Z',
      status,
      receivedAt: '2026-11-21T09:00:00Z',
    },
  };
}

const version = (entries: Record<string, Bar[]>) => new Map(Object.entries(entries));

/** Status colours as the design tokens give them (the light theme's). */
const STATUS_COLOURS = {
  received: { fill: '#1d4ed8', text: '#ffffff' },
  executing: { fill: '#b45309', text: '#ffffff' },
  completed: { fill: '#047857', text: '#ffffff' },
  cancelled: { fill: '#6b7280', text: '#ffffff' },
};

describe('changedStatuses', () => {
  it('finds bars whose status changed between two data versions', () => {
    const before = version({ 'BAT-1': [bar('a', 'received'), bar('b', 'executing')] });
    const after = version({ 'BAT-1': [bar('a', 'executing'), bar('b', 'completed')] });
    expect(changedStatuses(before, after)).toEqual([
      { barId: 'a', from: 'received', to: 'executing' },
      { barId: 'b', from: 'executing', to: 'completed' },
    ]);
  });

  it('ignores new bars, new devices, unchanged bars and a reused device list', () => {
    const kept = [bar('k', 'received')];
    const before = version({ 'BAT-1': [bar('a', 'received')], 'BAT-2': kept });
    const after = version({
      'BAT-1': [bar('a', 'received'), bar('new', 'executing')],
      'BAT-2': kept,
      'BAT-3': [bar('c', 'completed')],
    });
    expect(changedStatuses(before, after)).toEqual([]);
  });

  it('reports a cancellation of a received bar (the first step of a replace)', () => {
    const before = version({ 'BAT-1': [bar('a', 'received')] });
    const after = version({ 'BAT-1': [bar('a', 'cancelled'), bar('a2', 'received')] });
    expect(changedStatuses(before, after)).toEqual([
      { barId: 'a', from: 'received', to: 'cancelled' },
    ]);
  });
});

describe('transition progress and colour', () => {
  const transition = { from: 'received', to: 'executing', startedAtMs: 1000 } as const;

  it('runs from 0 to 1 over the transition time, eased, and clamps outside it', () => {
    expect(transitionProgress(transition, 500)).toBe(0);
    expect(transitionProgress(transition, 1000)).toBe(0);
    expect(transitionProgress(transition, 1000 + STATUS_TRANSITION_MS / 2)).toBeCloseTo(0.5);
    expect(transitionProgress(transition, 1000 + STATUS_TRANSITION_MS / 4)).toBeLessThan(0.25);
    expect(transitionProgress(transition, 1000 + STATUS_TRANSITION_MS)).toBe(1);
    expect(transitionProgress(transition, 99_999)).toBe(1);
  });

  it('mixes two colours channel by channel', () => {
    expect(mixColour('#000000', '#ffffff', 0)).toBe('rgb(0, 0, 0)');
    expect(mixColour('#000000', '#ffffff', 1)).toBe('rgb(255, 255, 255)');
    expect(mixColour('#102030', '#305070', 0.5)).toBe('rgb(32, 56, 80)');
  });

  it('starts in the old status colour with a full pulse and ends in the new one', () => {
    const start = transitionLook(transition, 1000, STATUS_COLOURS);
    expect(start.fill).toBe(mixColour(STATUS_COLOURS.received.fill, '#000000', 0));
    expect(start.pulse).toBe(1);
    const end = transitionLook(transition, 1000 + STATUS_TRANSITION_MS, STATUS_COLOURS);
    expect(end.fill).toBe(mixColour(STATUS_COLOURS.executing.fill, '#000000', 0));
    expect(end.pulse).toBe(0);
  });

  it('switches the text colour half way, so it always belongs to one of the two fills', () => {
    const toCancelled = { from: 'received', to: 'cancelled', startedAtMs: 0 } as const;
    expect(transitionLook(toCancelled, STATUS_TRANSITION_MS * 0.4, STATUS_COLOURS).text).toBe(
      STATUS_COLOURS.received.text,
    );
    expect(transitionLook(toCancelled, STATUS_TRANSITION_MS * 0.6, STATUS_COLOURS).text).toBe(
      STATUS_COLOURS.cancelled.text,
    );
  });
});

describe('createTransitionTracker', () => {
  const first = version({ 'BAT-1': [bar('a', 'received')] });
  const second = version({ 'BAT-1': [bar('a', 'executing')] });
  const noReducedMotion = () => false;

  it('starts nothing on the first data version it sees', () => {
    const tracker = createTransitionTracker();
    expect(tracker.at(first, 0, noReducedMotion).size).toBe(0);
  });

  it('runs a transition for a changed status, then stops once it has finished', () => {
    const tracker = createTransitionTracker();
    tracker.at(first, 0, noReducedMotion);
    const running = tracker.at(second, 100, noReducedMotion);
    expect(running.get('a')).toEqual({ from: 'received', to: 'executing', startedAtMs: 100 });
    expect(tracker.at(second, 100 + STATUS_TRANSITION_MS - 1, noReducedMotion).size).toBe(1);
    expect(tracker.at(second, 100 + STATUS_TRANSITION_MS, noReducedMotion).size).toBe(0);
  });

  it('does not restart a transition when the same version is drawn again', () => {
    const tracker = createTransitionTracker();
    tracker.at(first, 0, noReducedMotion);
    tracker.at(second, 100, noReducedMotion);
    expect(tracker.at(second, 200, noReducedMotion).get('a')?.startedAtMs).toBe(100);
  });

  it('animates nothing when the user asks for reduced motion', () => {
    const tracker = createTransitionTracker();
    tracker.at(first, 0, () => true);
    expect(tracker.at(second, 100, () => true).size).toBe(0);
  });

  it('asks for the motion preference only when a status changed', () => {
    const tracker = createTransitionTracker();
    let asked = 0;
    const reducedMotion = () => {
      asked++;
      return false;
    };
    tracker.at(first, 0, reducedMotion);
    tracker.at(version({ 'BAT-1': [bar('a', 'received')] }), 10, reducedMotion);
    expect(asked).toBe(0);
    tracker.at(second, 20, reducedMotion);
    expect(asked).toBe(1);
  });
});
