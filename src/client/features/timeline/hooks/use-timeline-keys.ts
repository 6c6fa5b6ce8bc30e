import type { RefObject } from 'react';
import type { Bar } from '../lib/bars.ts';
import type { GhostWindow } from '../lib/ghosts.ts';
import { nextDeviceRow, rowTarget, type TimelineRow } from '../lib/rows.ts';
import { snapToStep } from '../lib/snap.ts';
import { panBy, visibleRange, zoomAround, type TimeScale } from '../lib/time-scale.ts';
import type { RowTarget } from '../lib/timeline-types.ts';

const QUARTER_HOUR_MS = 15 * 60_000;

export interface TimelineKeyOptions {
  rows: readonly TimelineRow[];
  barsByDevice: ReadonlyMap<string, readonly Bar[]>;
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]> | undefined;
  /** True when the view only shows: Enter opens no new command. */
  readOnly?: boolean | undefined;
  nowMs: number;
  timeWidthPx: number;
  rowsHeightPx: number;
  focusedRow: number;
  focusedBarId: string | undefined;
  cursorMs: number | undefined;
  scaleRef: RefObject<TimeScale>;
  scrollerRef: RefObject<HTMLElement | null>;
  applyScale: (next: TimeScale) => void;
  setFocusedRow: (rowIndex: number) => void;
  setFocusedBarId: (barId: string | undefined) => void;
  setCursorMs: (ms: number) => void;
  cancelGesture: () => void;
  onSelectBar: (target: RowTarget, bar: Bar) => void;
  onNewCommand: (target: RowTarget, atMs: number) => void;
}

/**
 * Keyboard use of the grid: Up/Down move between device rows (scrolling the row into
 * view), Left/Right between the focused row's bars and ghost windows in time order (panning to
 * show it), Shift+Left/Right
 * pan by a quarter of the view, + and − zoom, Home goes to now, Enter opens the focused bar or
 * a new command at the keyboard cursor (default: the next quarter hour after now if in view; not
 * when read-only, and a ghost opens nothing: its name says all), Escape drops a drag.
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

  const onKeyDown = (event: React.KeyboardEvent<HTMLDivElement>) => {
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
    if ((key === 'ArrowDown' || key === 'ArrowUp') && !event.shiftKey) {
      const next = nextDeviceRow(rows, focusedRow, key === 'ArrowDown' ? 1 : -1);
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
      else if (!focusedWindow && !options.readOnly)
        options.onNewCommand(target, options.cursorMs ?? defaultCursorMs());
    } else if (key === 'Escape') {
      options.cancelGesture();
    } else return;
    event.preventDefault();
  };

  return { onKeyDown, newCommandForFocus };
}
