import type { PowerControl } from '../../../../domain/power-control.ts';
import { describePowerControl } from '../../../lib/power-control-words.ts';
import { siteClockWords } from '../../../../domain/time.ts';
import { QUEUED_LOCK_WORDS } from './edit-lock.ts';
import { windowInZone } from './window-words.ts';

/**
 * A window that is not a device command yet, drawn beside the device's command windows as a ghost
 * bar: a row of a dispatch plan before it is sent, so the operator sees overlaps before sending.
 * Times are epoch ms; `id` is unique in the view and never a command ID (ghost IDs start with
 * `ghost-`, see `ghostId`).
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
  /**
   * Set for the window of a change queued for its device's budget of upstream calls
   * (lib/queued-windows.ts): it goes by itself at `goesAtMs` and cannot be moved until it is sent.
   */
  queued?: QueuedMark;
}

/**
 * A change waiting for its device's budget of upstream calls (docs/decisions/007-device-call-budget.md):
 * its ID (to withdraw it), when its step goes (epoch ms) and whether it may still be withdrawn
 * (not once its first call went).
 */
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
 * Accessible name of a ghost bar, the text alternative of its dashed (or refused) drawing: device,
 * what it is, control, window on `timeZone`'s clock, and whether it can be sent or why not. E.g.
 * `Battery A: Plan line 3, not sent yet, -3 kW, Tue 24 Nov 18:00–19:00 Europe/Berlin, refused:
 * its window overlaps a command of this device that is waiting to start`. A queued change's
 * window says when it goes and why it cannot be moved: `Battery A: queued change, not sent yet,
 * -3 kW, Tue 24 Nov 18:00–19:00 Europe/Berlin, goes at 17:40:05 site time (16:40:05 UTC); it
 * cannot be moved…`.
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
