import type { RefObject } from 'react';
import { siteClockWords } from '#domain/time.ts';
import type { WindowMs } from '#domain/time-window.ts';
import type { Bar } from '../lib/bars.ts';
import { dragRefusal } from '../lib/drag-refusal.ts';
import { editLock, editLockWords, QUEUED_LOCK_WORDS } from '../lib/edit-lock.ts';
import type { GhostWindow } from '../lib/ghosts.ts';
import type { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import { refusalWords } from '../lib/refusal-words.ts';
import { nextDeviceRow, rowTarget, type TimelineRow } from '../lib/rows.ts';
import { snapToStep } from '../lib/snap.ts';
import { panBy, visibleRange, zoomAround, type TimeScale } from '../lib/time-scale.ts';
import type { RowTarget } from '../lib/timeline-types.ts';
import { windowLengthWords, windowSpoken } from '../lib/window-words.ts';
import type { PointerSpot } from './use-pointer-gestures.ts';

const QUARTER_HOUR_MS = 15 * 60_000;

/** A window picked up with Space (or M) and moved with the arrow keys, not sent yet. */
export interface KeyMove {
  rowIndex: number;
  bar: Bar;
  startMs: number;
  endMs: number;
  refused: boolean;
}

/** Device rows chosen together for a paste: from `anchorRow` to the focused row. */
export interface RowSelection {
  anchorRow: number;
  deviceIds: ReadonlySet<string>;
}

export interface TimelineKeyOptions {
  rows: readonly TimelineRow[];
  barsByDevice: ReadonlyMap<string, readonly Bar[]>;
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]> | undefined;
  overlapIndex: (deviceId: string) => DeviceOverlapIndex | undefined;
  /** True when the view only shows: Enter opens no new command. */
  readOnly?: boolean | undefined;
  /** Why the operator may not change anything (a viewer): said instead of a change. */
  changeRefusal?: string | undefined;
  nowMs: number;
  snapMs: number;
  utc: boolean;
  timeWidthPx: number;
  rowsHeightPx: number;
  focusedRow: number;
  focusedBarId: string | undefined;
  cursorMs: number | undefined;
  keyMove: KeyMove | undefined;
  selection: RowSelection | undefined;
  scaleRef: RefObject<TimeScale>;
  scrollerRef: RefObject<HTMLElement | null>;
  applyScale: (next: TimeScale) => void;
  setFocusedRow: (rowIndex: number) => void;
  setFocusedBarId: (barId: string | undefined) => void;
  setCursorMs: (ms: number | undefined) => void;
  setKeyMove: (move: KeyMove | undefined) => void;
  setSelection: (selection: RowSelection | undefined) => void;
  pointerSpot: () => PointerSpot | undefined;
  cancelGesture: () => void;
  say: (text: string, refused: boolean) => void;
  announce: (text: string) => void;
  onSelectBar: (target: RowTarget, bar: Bar) => void;
  onNewCommand: (target: RowTarget, atMs: number) => void;
  onMoveBar: (target: RowTarget, bar: Bar, window: WindowMs) => void;
  onOpenMenu?: ((target: RowTarget, bar: Bar) => void) | undefined;
  /** Shift+F10 on a queued change's window: its menu (withdraw, open queued changes). */
  onOpenGhostMenu?: ((target: RowTarget, ghost: GhostWindow) => void) | undefined;
  onCopyBar?: ((target: RowTarget, bar: Bar) => void) | undefined;
  onPaste?: ((targets: RowTarget[], atMs: number) => string | undefined) | undefined;
}

/** The device rows from `from` to `to` (either order), as a row selection anchored at `from`. */
export function rowsBetween(rows: readonly TimelineRow[], from: number, to: number): RowSelection {
  const deviceIds = new Set<string>();
  for (let i = Math.min(from, to); i <= Math.max(from, to); i++) {
    const row = rows[i];
    if (row?.kind === 'device') deviceIds.add(row.device.deviceId);
  }
  return { anchorRow: from, deviceIds };
}

/**
 * Keyboard use of the grid: arrows move between rows and windows, Shift+arrows choose rows or
 * pan, +/− zoom, Home goes to now, Enter opens, Escape drops a drag. On a window: Shift+F10 menu,
 * Ctrl/Cmd+C copy, Space/M pick up and move with the drag's rules, Ctrl/Cmd+V paste. What may
 * not be done is said, not ignored.
 */
export function useTimelineKeys(options: TimelineKeyOptions) {
  const { rows, timeWidthPx, scaleRef, applyScale, focusedRow, nowMs } = options;

  const scrollRowIntoView = (rowIndex: number) => {
    const row = rows[rowIndex];
    const scroller = options.scrollerRef.current;
    if (!row || !scroller) return;
    if (row.y < scroller.scrollTop) scroller.scrollTop = row.y - 26;
    else if (row.y + row.height > scroller.scrollTop + options.rowsHeightPx)
      scroller.scrollTop = row.y + row.height - options.rowsHeightPx;
  };

  const showTime = (ms: number) => {
    const current = scaleRef.current;
    const { startMs, endMs } = visibleRange(current, timeWidthPx);
    if (ms < startMs || ms > endMs)
      applyScale({ ...current, originMs: ms - (timeWidthPx / 4) * current.msPerPx });
  };

  const defaultCursorMs = () => {
    const { startMs, endMs } = visibleRange(scaleRef.current, timeWidthPx);
    const nowNext = snapToStep(nowMs + QUARTER_HOUR_MS, QUARTER_HOUR_MS);
    return nowNext > startMs && nowNext < endMs
      ? nowNext
      : Math.max(nowNext, snapToStep((startMs + endMs) / 2, QUARTER_HOUR_MS));
  };

  const newCommandForFocus = () => {
    const target = rowTarget(rows, focusedRow);
    if (target) options.onNewCommand(target, options.cursorMs ?? defaultCursorMs());
  };

  const zoneOf = (target: RowTarget) => (options.utc ? 'UTC' : target.site.timeZone);

  const stepKeyMove = (move: KeyMove, window: WindowMs) => {
    const target = rowTarget(rows, move.rowIndex);
    if (!target) return;
    const refusal = dragRefusal(
      window,
      nowMs,
      options.overlapIndex(target.device.deviceId),
      move.bar.id,
    );
    options.setKeyMove({ ...move, ...window, refused: !!refusal });
    const spoken = windowSpoken(window.startMs, window.endMs, zoneOf(target));
    if (refusal) options.say(refusalWords(refusal, zoneOf(target)), true);
    else options.say('', false);
    options.announce(spoken);
    showTime(window.startMs);
  };

  /** Handles a key while a window is picked up; false when the key drops it and goes on. */
  const onKeyMoveKey = (move: KeyMove, event: React.KeyboardEvent): boolean => {
    const { key } = event;
    const target = rowTarget(rows, move.rowIndex);
    if (!target) return false;
    const step = options.snapMs > 0 ? options.snapMs : 60_000;
    if (key === 'ArrowLeft' || key === 'ArrowRight') {
      const delta = key === 'ArrowRight' ? step : -step;
      stepKeyMove(
        move,
        event.shiftKey
          ? { startMs: move.startMs, endMs: Math.max(move.startMs + step, move.endMs + delta) }
          : { startMs: move.startMs + delta, endMs: move.endMs + delta },
      );
      return true;
    }
    if (key === 'Enter' || key === ' ') {
      const unchanged = move.startMs === move.bar.startMs && move.endMs === move.bar.endMs;
      if (move.refused) {
        options.say('This place is refused: move it on, or Escape leaves it where it was.', true);
        return true;
      }
      options.setKeyMove(undefined);
      if (unchanged) {
        options.say('', false);
        options.announce(`Command ${move.bar.id} left where it was.`);
        return true;
      }
      options.announce(
        `Moving command ${move.bar.id} to ${windowSpoken(move.startMs, move.endMs, zoneOf(target))}.`,
      );
      options.say('', false);
      options.onMoveBar(target, move.bar, { startMs: move.startMs, endMs: move.endMs });
      return true;
    }
    options.setKeyMove(undefined);
    options.say('', false);
    if (key === 'Escape') {
      options.announce(`Command ${move.bar.id} left where it was.`);
      return true;
    }
    return false;
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLDivElement>) => {
    if (options.keyMove && onKeyMoveKey(options.keyMove, event)) {
      event.preventDefault();
      return;
    }
    const target = rowTarget(rows, focusedRow);
    const deviceId = target?.device.deviceId ?? '';
    const bars = options.barsByDevice.get(deviceId) ?? [];
    const ghosts = options.ghostsByDevice?.get(deviceId) ?? [];
    // What Left/Right step through: the bars, and the ghosts among them by start.
    const windows: readonly { id: string; startMs: number; endMs: number }[] =
      ghosts.length === 0 ? bars : [...bars, ...ghosts].sort((a, b) => a.startMs - b.startMs);
    const focusedWindow = windows.find((window) => window.id === options.focusedBarId);
    const focusedBar = bars.find((bar) => bar.id === options.focusedBarId);
    const key = event.key;
    const command = event.ctrlKey || event.metaKey;
    const letter = key.length === 1 ? key.toLowerCase() : '';
    if (command && letter === 'c') {
      if (!options.onCopyBar) return;
      if (target && focusedBar) options.onCopyBar(target, focusedBar);
      else options.say('Choose a window with the arrow keys (or click it) to copy it.', false);
    } else if (command && letter === 'v') {
      if (!options.onPaste) return;
      paste(focusedBar);
    } else if ((key === 'F10' && event.shiftKey) || key === 'ContextMenu') {
      if (!options.onOpenMenu && !options.onOpenGhostMenu) return;
      const focusedQueued = ghosts.find((g) => g.id === options.focusedBarId && g.queued);
      if (target && focusedBar && options.onOpenMenu) options.onOpenMenu(target, focusedBar);
      else if (target && focusedQueued && options.onOpenGhostMenu)
        options.onOpenGhostMenu(target, focusedQueued);
      else
        options.say('Choose a window with the arrow keys first: Shift+F10 opens its menu.', false);
    } else if ((key === ' ' || letter === 'm') && !command && !event.altKey && focusedBar) {
      liftBar(focusedBar);
    } else if ((key === ' ' || letter === 'm') && !command && !event.altKey && target) {
      // A queued change's window is not a command yet: say why it stays where it is.
      const queued = ghosts.find((g) => g.id === options.focusedBarId)?.queued;
      if (queued)
        options.say(
          `This queued change goes at ${siteClockWords(queued.goesAtMs, zoneOf(target))}; ${QUEUED_LOCK_WORDS}`,
          true,
        );
    } else if ((key === 'ArrowDown' || key === 'ArrowUp') && event.shiftKey) {
      const next = nextDeviceRow(rows, focusedRow, key === 'ArrowDown' ? 1 : -1);
      const selection = rowsBetween(rows, options.selection?.anchorRow ?? focusedRow, next);
      options.setSelection(selection);
      options.setFocusedRow(next);
      options.setFocusedBarId(undefined);
      scrollRowIntoView(next);
      options.announce(
        `${selection.deviceIds.size} ${selection.deviceIds.size === 1 ? 'row' : 'rows'} chosen for a paste.`,
      );
    } else if (key === 'ArrowDown' || key === 'ArrowUp') {
      const next = nextDeviceRow(rows, focusedRow, key === 'ArrowDown' ? 1 : -1);
      options.setSelection(undefined);
      options.setFocusedRow(next);
      options.setFocusedBarId(undefined);
      scrollRowIntoView(next);
    } else if ((key === 'ArrowLeft' || key === 'ArrowRight') && event.shiftKey) {
      applyScale(panBy(scaleRef.current, (key === 'ArrowRight' ? 1 : -1) * (timeWidthPx / 4)));
    } else if (key === 'ArrowLeft' || key === 'ArrowRight') {
      const fromMs = focusedWindow?.startMs ?? options.cursorMs ?? defaultCursorMs();
      const at = focusedWindow ? windows.indexOf(focusedWindow) : -1;
      // Windows starting together are stepped through in order, not skipped.
      const next =
        key === 'ArrowRight'
          ? focusedWindow
            ? windows[at + 1]
            : windows.find((window) => window.endMs > fromMs)
          : focusedWindow
            ? windows[at - 1]
            : windows.findLast((window) => window.startMs < fromMs);
      if (next) {
        options.setFocusedBarId(next.id);
        options.setCursorMs(next.startMs);
        showTime(next.startMs);
      }
    } else if (key === '+' || key === '=' || key === '-') {
      applyScale(zoomAround(scaleRef.current, timeWidthPx / 2, key === '-' ? 2 : 0.5, timeWidthPx));
    } else if (key === 'Home') {
      showTime(nowMs);
      applyScale({
        ...scaleRef.current,
        originMs: nowMs - (timeWidthPx / 4) * scaleRef.current.msPerPx,
      });
    } else if (key === 'Enter' && target) {
      if (focusedBar) options.onSelectBar(target, focusedBar);
      else if (!focusedWindow && options.changeRefusal !== undefined)
        options.say(options.changeRefusal, false);
      else if (!focusedWindow && !options.readOnly)
        options.onNewCommand(target, options.cursorMs ?? defaultCursorMs());
    } else if (key === 'Escape') {
      options.cancelGesture();
      options.setSelection(undefined);
    } else return;
    event.preventDefault();
  };

  /** Picks up `bar` to move it with the arrow keys, or says why it may not move. */
  const liftBar = (bar: Bar) => {
    const target = rowTarget(rows, focusedRow);
    // A preview (read-only without a refusal to give) moves nothing and says nothing of it.
    if (!target || (options.readOnly && options.changeRefusal === undefined)) return;
    if (options.changeRefusal !== undefined) return options.say(options.changeRefusal, false);
    const lock = editLock(bar, nowMs);
    if (lock) return options.say(editLockWords(bar.id, lock, zoneOf(target)), false);
    options.setKeyMove({
      rowIndex: focusedRow,
      bar,
      startMs: bar.startMs,
      endMs: bar.endMs,
      refused: false,
    });
    const step = windowLengthWords(options.snapMs > 0 ? options.snapMs : 60_000);
    options.announce(
      `Moving command ${bar.id}, ${windowSpoken(bar.startMs, bar.endMs, zoneOf(target))}. Left and Right move it by ${step}, with Shift they change its end; Enter puts it there, Escape leaves it.`,
    );
  };

  /** Pastes under the pointer, else on the focused or chosen rows, after the focused window or at the cursor. */
  const paste = (focusedBar: Bar | undefined) => {
    const spot = options.pointerSpot();
    const rowIndex = spot?.rowIndex ?? focusedRow;
    const target = rowTarget(rows, rowIndex);
    if (!target) return options.say('Choose a device row to paste on.', false);
    if (options.changeRefusal !== undefined) return options.say(options.changeRefusal, false);
    const atMs = spot
      ? snapToStep(spot.ms, options.snapMs, zoneOf(target))
      : (focusedBar?.endMs ?? options.cursorMs ?? defaultCursorMs());
    const chosen = options.selection?.deviceIds;
    const targets =
      chosen && chosen.size > 1 && chosen.has(target.device.deviceId)
        ? rows.flatMap((_, i) => {
            const row = rowTarget(rows, i);
            return row && chosen.has(row.device.deviceId) ? [row] : [];
          })
        : [target];
    const refusal = options.onPaste?.(targets, atMs);
    if (refusal) options.say(refusal, true);
  };

  return { onKeyDown, newCommandForFocus };
}
