import type { Bar } from './bars.ts';
import type { StatusColours } from '#client/lib/design-tokens.ts';

type CommandStatus = Bar['status'];

/** How long a bar takes to change to its new status colour, in ms. */
export const STATUS_TRANSITION_MS = 500;

/** A bar changing status: drawn crossfading from the old colour to the new from `startedAtMs`. */
export interface StatusTransition {
  from: CommandStatus;
  to: CommandStatus;
  startedAtMs: number;
}

export interface StatusChange {
  barId: string;
  from: CommandStatus;
  to: CommandStatus;
}

/**
 * Bars whose status differs between two data versions; only devices whose list changed identity
 * are compared, so a first load or a device scrolling into view announces nothing.
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

/** Progress of a transition at `nowMs`, 0 to 1, smoothstep-eased. */
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
  pulse: number;
}

/** The look of a transition at `nowMs` between the two statuses' `#rrggbb` colours. */
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

/** Starts a transition per change (a bar changing again starts over) and drops finished ones; mutates `running`. */
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
  /** The transitions running at `timeMs`; a new data version starts them unless `reducedMotion()`. */
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
