import type { CommandStatus } from '#domain/command.ts';
import { CHANGE_LEAD_TIME_MS, CHANGE_LEAD_TIME_WORDS } from '#domain/lead-time.ts';
import { clockTimeWithSeconds } from '#client/lib/time.ts';
import { clockTime } from './window-words.ts';

/**
 * Lead time before its start after which a window can no longer be edited or sent: domain
 * `CHANGE_LEAD_TIME_MS` (src/domain/lead-time.ts), the rule the BFF refuses with `budget_too_tight`.
 */
export const EDIT_LEAD_TIME_MS = CHANGE_LEAD_TIME_MS;

export const EDIT_LEAD_TIME_WORDS = CHANGE_LEAD_TIME_WORDS;

/** Why a window can no longer be moved or replaced: ended, running, starting soon, or its cancel queued. */
export type EditLock =
  | { kind: 'final'; status: 'completed' | 'cancelled' }
  | { kind: 'cancelQueued'; goesAtMs: number }
  | { kind: 'started'; startMs: number; running: boolean }
  | { kind: 'soon'; startMs: number };

/**
 * The lock at `nowMs` on a command's window, or null while it may change: only a received command
 * at least {@link EDIT_LEAD_TIME_MS} ahead (docs/upstream.md, Lifecycle) whose cancel is not
 * queued (docs/decisions/007-device-call-budget.md; a replace would cancel it twice).
 */
export function editLock(
  window: { status: CommandStatus; startMs: number; queuedCancel?: { goesAtMs: number } },
  nowMs: number,
): EditLock | null {
  const { status, startMs } = window;
  if (status === 'completed' || status === 'cancelled') return { kind: 'final', status };
  if (window.queuedCancel) return { kind: 'cancelQueued', goesAtMs: window.queuedCancel.goesAtMs };
  if (status === 'executing' || startMs <= nowMs)
    return { kind: 'started', startMs, running: status === 'executing' };
  if (startMs < nowMs + EDIT_LEAD_TIME_MS) return { kind: 'soon', startMs };
  return null;
}

/** Why the window of command `id` cannot be changed and what can be done instead, on `timeZone`. */
export function editLockWords(id: string, lock: EditLock, timeZone: string): string {
  switch (lock.kind) {
    case 'final':
      return `Command ${id} has ${lock.status === 'completed' ? 'completed' : 'been cancelled'}: its window can no longer change. Duplicate it to send the same control again.`;
    case 'started':
      return lock.running
        ? `Command ${id} started at ${clockTime(lock.startMs, timeZone)} and is running: it can no longer be moved. Cancel it if it must stop.`
        : `Command ${id} was due to start at ${clockTime(lock.startMs, timeZone)}: it can no longer be moved. Cancel it if it must not run.`;
    case 'cancelQueued':
      return `Command ${id} is being cancelled: its cancel is queued and goes at ${clockTimeWithSeconds(lock.goesAtMs, timeZone)}. Withdraw the cancel (the window's menu, or Queued changes) to change its window instead.`;
    case 'soon':
      return `Command ${id} starts at ${clockTime(lock.startMs, timeZone)}, within ${EDIT_LEAD_TIME_WORDS} of now: a change could not reach the device before it starts. Cancel it if it must not run.`;
  }
}

/** Why a queued change's window cannot move: it is not a command yet, and its content was fixed when queued. */
export const QUEUED_LOCK_WORDS =
  'it cannot be moved or resized until it is sent: withdraw it (its menu, or Queued changes) and schedule the window again.';
