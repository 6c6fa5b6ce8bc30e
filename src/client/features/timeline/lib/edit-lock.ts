import type { CommandStatus } from '../../../../domain/command.ts';
import { CHANGE_LEAD_TIME_MS, CHANGE_LEAD_TIME_WORDS } from '../../../../domain/lead-time.ts';
import { clockTimeWithSeconds } from '../../../lib/time.ts';
import { clockTime } from './window-words.ts';

/**
 * How long before its start a window stops being editable, and how far ahead a window sent from
 * the timeline must start: the lead time of every change (domain `CHANGE_LEAD_TIME_MS`,
 * src/domain/lead-time.ts), the same rule by which the BFF refuses a replace or an undo whose last
 * call its device's budget would send too late (409 `budget_too_tight`).
 */
export const EDIT_LEAD_TIME_MS = CHANGE_LEAD_TIME_MS;

/** `2 minutes`: the lead time in words. */
export const EDIT_LEAD_TIME_WORDS = CHANGE_LEAD_TIME_WORDS;

/**
 * Why a command's window can no longer be moved, resized or replaced: it has ended (`final`:
 * completed or cancelled), it is running (`started`), or it starts within
 * {@link EDIT_LEAD_TIME_MS} (`soon`). Cancel stays possible while it is active.
 */
export type EditLock =
  | { kind: 'final'; status: 'completed' | 'cancelled' }
  | { kind: 'cancelQueued'; goesAtMs: number }
  | { kind: 'started'; startMs: number; running: boolean }
  | { kind: 'soon'; startMs: number };

/**
 * The lock at `nowMs` on the window of a command in `status` starting at `startMs` (epoch ms, a
 * bar's), or null while it may be changed: only a received command whose start is at least
 * {@link EDIT_LEAD_TIME_MS} ahead (docs/upstream.md, Lifecycle: a window is changed only while
 * received; once executing, the command is effective on the device). A command whose cancel is
 * queued (`queuedCancel`, docs/decisions/007-device-call-budget.md) is locked too
 * (`cancelQueued`): a replace would cancel it a second time.
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

/**
 * Why the window of a queued change (one waiting for its device's budget of upstream calls,
 * docs/decisions/007-device-call-budget.md) cannot be moved or resized: it is not a command yet,
 * and what it sends was fixed when it was queued.
 */
export const QUEUED_LOCK_WORDS =
  'it cannot be moved or resized until it is sent: withdraw it (its menu, or Queued changes) and schedule the window again.';
