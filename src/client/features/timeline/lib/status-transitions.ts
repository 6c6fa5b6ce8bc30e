import type { Bar } from './bars.ts';
import type { StatusColours } from '../../../lib/design-tokens.ts';

type CommandStatus = Bar['status'];

/** How long a bar takes to change to its new status colour, in ms. */
export const STATUS_TRANSITION_MS = 500;

/** A bar changing status: drawn crossfading from the old colour to the new from `startedAtMs`. */
export interface StatusTransition {
  from: CommandStatus;
  to: CommandStatus;
  /** Clock of requestAnimationFrame / performance.now(), in ms. */
  startedAtMs: number;
}

/** A status change found between two data versions. */
export interface StatusChange {
  barId: string;
  from: CommandStatus;
  to: CommandStatus;
}

/**
 * Bars whose status differs between two versions of the bars by device (polled live). Only
 * devices present in both versions whose bar list changed identity are compared, so a first
 * load, a device scrolling into view or a version that reuses a device's list costs nothing and
 * announces nothing; a bar new in `next` is not a change.
 */
export function changedStatuses(
  previous: ReadonlyMap<string, readonly Bar[]>,
  next: ReadonlyMap<string, readonly Bar[]>,
): StatusChange[] {
  const changes: StatusChange[] = [];
  for (const [deviceId, bars] of next) {
    const before = previous.get(deviceId);
    if (!before || before === bars) continue;
    const statusById = new Map<string, CommandStatus>();
    for (const bar of before) statusById.set(bar.id, bar.status);
    for (const bar of bars) {
      const from = statusById.get(bar.id);
      if (from !== undefined && from !== bar.status)
        changes.push({ barId: bar.id, from, to: bar.status });
    }
  }
  return changes;
}

/**
 * Progress of a transition at `nowMs`, from 0 (old colour) to 1 (finished), eased in and out
 * (smoothstep) so the change starts and lands softly.
 */
export function transitionProgress(transition: StatusTransition, nowMs: number): number {
  const linear = Math.min(1, Math.max(0, (nowMs - transition.startedAtMs) / STATUS_TRANSITION_MS));
  return linear * linear * (3 - 2 * linear);
}

function channels(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}

/** The colour `t` (0..1) of the way from `from` to `to`, both `#rrggbb`, as `rgb(r, g, b)`. */
export function mixColour(from: string, to: string, t: number): string {
  const a = channels(from);
  const b = channels(to);
  const mix = (i: 0 | 1 | 2) => Math.round(a[i] + (b[i] - a[i]) * t);
  return `rgb(${mix(0)}, ${mix(1)}, ${mix(2)})`;
}

/** How a bar in transition looks at `nowMs`: its fill, its text colour and a pulse (1 to 0). */
export interface TransitionLook {
  fill: string;
  text: string;
  /** Strength of the ring drawn around the bar, fading from 1 to 0 as the transition ends. */
  pulse: number;
}

/**
 * The look of a bar `transition` at `nowMs`, between the two statuses' colours of `statusColours`
 * (the design tokens `--status-*`, `#rrggbb`); the text switches colour half way.
 */
export function transitionLook(
  transition: StatusTransition,
  nowMs: number,
  statusColours: Readonly<Record<StatusTransition['from'], StatusColours>>,
): TransitionLook {
  const t = transitionProgress(transition, nowMs);
  const from = statusColours[transition.from];
  const to = statusColours[transition.to];
  return {
    fill: mixColour(from.fill, to.fill, t),
    text: t < 0.5 ? from.text : to.text,
    pulse: 1 - t,
  };
}

/**
 * Starts a transition for each change at `nowMs` in `running` (keyed by bar ID; a bar changing
 * again mid-way starts over from its old status), and drops those finished by `nowMs`. Mutates
 * and returns `running`.
 */
export function advanceTransitions(
  running: Map<string, StatusTransition>,
  changes: readonly StatusChange[],
  nowMs: number,
): Map<string, StatusTransition> {
  for (const change of changes)
    running.set(change.barId, { from: change.from, to: change.to, startedAtMs: nowMs });
  for (const [barId, transition] of running)
    if (nowMs - transition.startedAtMs >= STATUS_TRANSITION_MS) running.delete(barId);
  return running;
}

/** Follows the data versions a view draws and the status transitions they start. */
export interface TransitionTracker {
  /**
   * The transitions running at `timeMs` for the data version `barsByDevice`: a version not seen
   * before starts a transition for each changed status, unless `reducedMotion()` (asked only
   * then; the bar simply takes its new colour); finished ones are dropped. Empty when idle.
   */
  at(
    barsByDevice: ReadonlyMap<string, readonly Bar[]>,
    timeMs: number,
    reducedMotion: () => boolean,
  ): ReadonlyMap<string, StatusTransition>;
}

/** A tracker with no version seen yet: the first data version it sees starts nothing. */
export function createTransitionTracker(): TransitionTracker {
  let seen: ReadonlyMap<string, readonly Bar[]> | undefined;
  const running = new Map<string, StatusTransition>();
  return {
    at(barsByDevice, timeMs, reducedMotion) {
      let changes: StatusChange[] = [];
      if (seen && seen !== barsByDevice) {
        changes = changedStatuses(seen, barsByDevice);
        if (changes.length > 0 && reducedMotion()) {
          changes = [];
          running.clear();
        }
      }
      seen = barsByDevice;
      return advanceTransitions(running, changes, timeMs);
    },
  };
}
