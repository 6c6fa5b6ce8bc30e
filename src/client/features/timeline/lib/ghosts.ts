import type { PowerControl } from '#domain/power-control.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { siteClockWords } from '#domain/time.ts';
import { QUEUED_LOCK_WORDS } from './edit-lock.ts';
import { windowInZone } from './window-words.ts';

/**
 * A window that is not a device command yet (a plan row before it is sent), drawn as a ghost bar
 * so overlaps show before sending. Epoch ms; `id` starts with `ghost-` (`ghostId`).
 */
export interface GhostWindow {
  id: string;
  startMs: number;
  endMs: number;
  /** What the window is in the operator's words, e.g. `Plan line 3`. */
  name: string;
  /** The power control it would send, when the row could be read. */
  powerControl?: PowerControl;
  /** Why it would not be sent, in the operator's words; absent: it can be sent. */
  refusal?: string;
  /** Set for a change queued for the device's budget (lib/queued-windows.ts): it cannot move until sent. */
  queued?: QueuedMark;
}

/** A change waiting for its device's budget (docs/decisions/007-device-call-budget.md): ID, when it goes (epoch ms), whether it may be withdrawn. */
export interface QueuedMark {
  changeId: string;
  goesAtMs: number;
  withdrawable: boolean;
}

/** Prefix of every ghost ID, so a focused ghost is never taken for a command's bar. */
const GHOST_PREFIX = 'ghost-';

/** The ID of a ghost from a key unique among the ghosts of the view (a plan line, say). */
export function ghostId(key: string | number): string {
  return `${GHOST_PREFIX}${key}`;
}

/** True when a focus ID names a ghost rather than a command's bar. */
export function isGhostId(id: string | undefined): boolean {
  return id?.startsWith(GHOST_PREFIX) ?? false;
}

/** The label drawn in a ghost bar, e.g. `Plan line 3 · -3 kW` or `✕ Plan line 4 · refused`. */
export function ghostLabel(ghost: GhostWindow): string {
  const control = ghost.powerControl ? ` · ${describePowerControl(ghost.powerControl)}` : '';
  return ghost.refusal ? `✕ ${ghost.name} · refused` : `${ghost.name}${control}`;
}

/**
 * Accessible name of a ghost bar: device, what it is, control, window on `timeZone`'s clock, and
 * whether it can be sent or why not (a queued one: when it goes).
 */
export function ghostAccessibleName(deviceName: string, ghost: GhostWindow, timeZone: string) {
  const control = ghost.powerControl ? `${describePowerControl(ghost.powerControl)}, ` : '';
  if (ghost.queued)
    return `${deviceName}: queued change, not sent yet, ${control}${windowInZone(
      ghost.startMs,
      ghost.endMs,
      timeZone,
    )}, goes at ${siteClockWords(ghost.queued.goesAtMs, timeZone)}; ${QUEUED_LOCK_WORDS}`;
  const verdict = ghost.refusal ? `refused: ${ghost.refusal}` : 'can be sent';
  return `${deviceName}: ${ghost.name}, not sent yet, ${control}${windowInZone(
    ghost.startMs,
    ghost.endMs,
    timeZone,
  )}, ${verdict}`;
}

/** The ghost under `ms` in a row's ghosts (sorted by start), refused ones first, or undefined. */
export function ghostAt(
  ghosts: readonly GhostWindow[],
  ms: number,
  toleranceMs = 0,
): GhostWindow | undefined {
  let hit: GhostWindow | undefined;
  for (const ghost of ghosts) {
    if (ghost.startMs - toleranceMs > ms) break;
    if (ms < ghost.endMs + toleranceMs) {
      if (ghost.refusal) return ghost;
      hit ??= ghost;
    }
  }
  return hit;
}

/** Ghosts grouped by device ID, each list sorted by start (what drawing and keys expect). */
export function ghostsByDevice(
  ghosts: readonly (GhostWindow & { deviceId: string })[],
): Map<string, GhostWindow[]> {
  const byDevice = new Map<string, GhostWindow[]>();
  for (const { deviceId, ...ghost } of ghosts) {
    const list = byDevice.get(deviceId) ?? [];
    list.push(ghost);
    byDevice.set(deviceId, list);
  }
  for (const list of byDevice.values()) list.sort((a, b) => a.startMs - b.startMs);
  return byDevice;
}
