import { useRef, useState, type RefObject } from 'react';
import type { WindowMs } from '#domain/time-window.ts';
import { edgeUnder, type BarEdge } from '../lib/bar-edge.ts';
import { barAt, type Bar } from '../lib/bars.ts';
import { dragRefusal } from '../lib/drag-refusal.ts';
import { editLock, editLockWords } from '../lib/edit-lock.ts';
import { ghostAt, type GhostWindow } from '../lib/ghosts.ts';
import {
  AXIS_HEIGHT_PX,
  LABEL_WIDTH_PX,
  type DragPreview,
  type MovingPreview,
} from '../lib/draw.ts';
import type { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import { refusalWords } from '../lib/refusal-words.ts';
import { rowIndexAtY, rowTarget, type TimelineRow } from '../lib/rows.ts';
import { snapToStep } from '../lib/snap.ts';
import { panBy, xToTime, type TimeScale } from '../lib/time-scale.ts';
import type { RowTarget } from '../lib/timeline-types.ts';
import { windowSpoken } from '../lib/window-words.ts';

type Gesture =
  | { kind: 'pan'; lastX: number }
  | { kind: 'create'; rowIndex: number; anchorMs: number; endMs: number; moved: boolean }
  | { kind: 'press'; rowIndex: number; bar: Bar; downX: number; downMs: number; edge: BarEdge }
  | {
      kind: 'move';
      rowIndex: number;
      bar: Bar;
      downMs: number;
      edge: BarEdge;
      startMs: number;
      endMs: number;
    }
  /** A drag that would change something but may not: said once, then nothing until release. */
  | { kind: 'blocked' };

/** A refusal (an alert) or hint beside the pointer; `xPx`, `yPx` in canvas CSS pixels. */
export interface TimelineMessage {
  text: string;
  refused: boolean;
  xPx?: number;
  yPx?: number;
}

/** The bar under the pointer, for the hover tooltip and menu button; x and y in canvas CSS pixels. */
export interface HoverTarget extends RowTarget {
  bar: Bar;
  rowIndex: number;
  x: number;
  y: number;
}

/** The ghost window under the pointer, for its hover card; x and y in canvas CSS pixels. */
export interface GhostHoverTarget extends RowTarget {
  ghost: GhostWindow;
  x: number;
  y: number;
}

/** Where the pointer is over a device row's time area: what a paste under the pointer uses. */
export interface PointerSpot {
  rowIndex: number;
  ms: number;
}

export interface GestureData {
  barsByDevice: ReadonlyMap<string, readonly Bar[]>;
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]> | undefined;
  readOnly?: boolean | undefined;
  /** Why the operator may not change anything: a drag on a row says it; the axis still pans. */
  changeRefusal?: string | undefined;
  overlapIndex: (deviceId: string) => DeviceOverlapIndex | undefined;
  nowMs: number;
}

export interface PointerGestureOptions {
  rows: readonly TimelineRow[];
  utc: boolean;
  snapMs: number;
  dataRef: RefObject<GestureData>;
  scaleRef: RefObject<TimeScale>;
  scrollTopRef: RefObject<number>;
  gridRef: RefObject<HTMLElement | null>;
  /** Sets the scale while panning: the canvas follows at once, React once the pan rests. */
  panScale: (next: TimeScale) => void;
  setFocusedRow: (rowIndex: number) => void;
  setFocusedBarId: (barId: string | undefined) => void;
  setMessage: (message: TimelineMessage | undefined) => void;
  /** The keyboard's time on the focused row: a click on an empty part of a row sets it. */
  setCursorMs: (ms: number | undefined) => void;
  /** Said politely to screen readers once a drag has made a window (its readout's words). */
  announce: (text: string) => void;
  /** Shift+click on a row: the rows from the focused one to it are chosen for a paste. */
  extendRowSelection: (rowIndex: number) => void;
  onCreateWindow: (target: RowTarget, window: WindowMs) => void;
  onSelectBar: (target: RowTarget, bar: Bar) => void;
  onMoveBar: (target: RowTarget, bar: Bar, window: WindowMs) => void;
  /** A right-click on a bar: its menu opens (the browser's own menu elsewhere). */
  onBarContextMenu?: ((target: RowTarget, bar: Bar, rowIndex: number) => void) | undefined;
  onGhostContextMenu?:
    ((target: RowTarget, ghost: GhostWindow, rowIndex: number) => void) | undefined;
}

/**
 * Pointer gestures on the canvas: pan on the axis, draw on an empty row, select, move or resize
 * an editable bar (lib/edit-lock.ts), set the keyboard's time, Shift+click to choose rows. The
 * drag rule (`dragRefusal`) is checked on every move; a refused window is never handed on.
 * A preview (`readOnly` without `changeRefusal`) pans on any drag.
 */
export function usePointerGestures(options: PointerGestureOptions) {
  const { rows, utc, snapMs, dataRef, scaleRef, scrollTopRef, setMessage } = options;
  const gestureRef = useRef<Gesture | undefined>(undefined);
  const [drag, setDrag] = useState<DragPreview>();
  const [moving, setMoving] = useState<MovingPreview>();
  const [hover, setHover] = useState<HoverTarget>();
  const [hoverGhost, setHoverGhost] = useState<GhostHoverTarget>();
  const spotRef = useRef<PointerSpot | undefined>(undefined);

  const zoneOf = (target: RowTarget) => (utc ? 'UTC' : target.site.timeZone);

  const pointAt = (event: React.PointerEvent) => {
    const rect = event.currentTarget.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    const rowIndex =
      y < AXIS_HEIGHT_PX ? -1 : rowIndexAtY(rows, y - AXIS_HEIGHT_PX + scrollTopRef.current);
    return { x, y, rowIndex, ms: xToTime(scaleRef.current, x - LABEL_WIDTH_PX) };
  };

  const verdict = (target: RowTarget, window: WindowMs, ignoreId?: string) =>
    dragRefusal(
      window,
      dataRef.current.nowMs,
      dataRef.current.overlapIndex(target.device.deviceId),
      ignoreId,
    );

  const onPointerDown = (event: React.PointerEvent<HTMLCanvasElement>) => {
    if (event.button !== 0) return;
    // A refusal belongs to the drag that made it: a new press starts a new attempt.
    setMessage(undefined);
    options.gridRef.current?.focus({ preventScroll: true });
    const point = pointAt(event);
    event.currentTarget.setPointerCapture(event.pointerId);
    const { readOnly, changeRefusal } = dataRef.current;
    if (point.y < AXIS_HEIGHT_PX || (readOnly && changeRefusal === undefined)) {
      gestureRef.current = { kind: 'pan', lastX: point.x };
      return;
    }
    const target = rowTarget(rows, point.rowIndex);
    if (!target) return;
    if (event.shiftKey) {
      options.extendRowSelection(point.rowIndex);
      return;
    }
    options.setFocusedRow(point.rowIndex);
    if (point.x < LABEL_WIDTH_PX) return;
    const bars = dataRef.current.barsByDevice.get(target.device.deviceId) ?? [];
    const bar = barAt(bars, point.ms, 3 * scaleRef.current.msPerPx);
    if (bar) {
      gestureRef.current = {
        kind: 'press',
        rowIndex: point.rowIndex,
        bar,
        downX: point.x,
        downMs: point.ms,
        edge: edgeUnder(bar, point.ms, scaleRef.current.msPerPx),
      };
      return;
    }
    const anchorMs = snapToStep(point.ms, snapMs, zoneOf(target));
    gestureRef.current = {
      kind: 'create',
      rowIndex: point.rowIndex,
      anchorMs,
      endMs: anchorMs,
      moved: false,
    };
  };

  const onHoverMove = (event: React.PointerEvent<HTMLCanvasElement>) => {
    const point = pointAt(event);
    const target = rowTarget(rows, point.rowIndex);
    spotRef.current =
      target && point.x >= LABEL_WIDTH_PX ? { rowIndex: point.rowIndex, ms: point.ms } : undefined;
    const ghosts =
      target && point.x >= LABEL_WIDTH_PX
        ? dataRef.current.ghostsByDevice?.get(target.device.deviceId)
        : undefined;
    const row = rows[point.rowIndex];
    // Ghosts take a row's lower half (lib/draw.ts), its command bars the upper half.
    const inLowerHalf =
      !!row && point.y - AXIS_HEIGHT_PX + scrollTopRef.current >= row.y + row.height / 2;
    const ghost = ghosts?.length && inLowerHalf ? ghostAt(ghosts, point.ms) : undefined;
    if (ghost?.id !== hoverGhost?.ghost.id)
      setHoverGhost(ghost && target ? { ghost, ...target, x: point.x, y: point.y } : undefined);
    const bar =
      target && point.x >= LABEL_WIDTH_PX && !(ghosts?.length && inLowerHalf)
        ? barAt(dataRef.current.barsByDevice.get(target.device.deviceId) ?? [], point.ms)
        : undefined;
    if (bar?.id !== hover?.bar.id)
      setHover(
        bar && target
          ? { bar, ...target, rowIndex: point.rowIndex, x: point.x, y: point.y }
          : undefined,
      );
    const { readOnly, changeRefusal, nowMs } = dataRef.current;
    if (readOnly && changeRefusal === undefined) {
      event.currentTarget.style.cursor = bar || ghost ? 'default' : 'grab';
      return;
    }
    // The cursor says what a drag would do ("not allowed" over a locked window).
    const locked = !bar || changeRefusal !== undefined || editLock(bar, nowMs) !== null;
    const edge = bar && !locked ? edgeUnder(bar, point.ms, scaleRef.current.msPerPx) : 'both';
    event.currentTarget.style.cursor =
      point.y < AXIS_HEIGHT_PX
        ? 'grab'
        : bar && locked
          ? bar.status === 'received' || bar.status === 'executing'
            ? 'not-allowed'
            : 'pointer'
          : edge !== 'both'
            ? 'ew-resize'
            : bar
              ? 'move'
              : changeRefusal !== undefined
                ? 'default'
                : 'crosshair';
  };

  const block = (text: string, point: { x: number; y: number }) => {
    gestureRef.current = { kind: 'blocked' };
    setHover(undefined);
    setMessage({ text, refused: false, xPx: point.x, yPx: point.y });
  };

  const onPointerMove = (event: React.PointerEvent<HTMLCanvasElement>) => {
    const gesture = gestureRef.current;
    if (!gesture) return onHoverMove(event);
    const point = pointAt(event);
    if (gesture.kind === 'pan') {
      options.panScale(panBy(scaleRef.current, gesture.lastX - point.x));
      gesture.lastX = point.x;
      return;
    }
    if (gesture.kind === 'blocked') return;
    const target = rowTarget(rows, gesture.rowIndex);
    if (!target) return;
    const zone = zoneOf(target);
    const { changeRefusal, nowMs } = dataRef.current;
    if (gesture.kind === 'press') {
      if (Math.abs(point.x - gesture.downX) < 4) return;
      if (changeRefusal !== undefined) return block(changeRefusal, point);
      const lock = editLock(gesture.bar, nowMs);
      if (lock) return block(editLockWords(gesture.bar.id, lock, zone), point);
      setHover(undefined);
      gestureRef.current = {
        kind: 'move',
        rowIndex: gesture.rowIndex,
        bar: gesture.bar,
        downMs: gesture.downMs,
        edge: gesture.edge,
        startMs: gesture.bar.startMs,
        endMs: gesture.bar.endMs,
      };
      return;
    }
    if (gesture.kind === 'move') {
      if (gesture.edge === 'both') {
        const shiftMs = snapToStep(point.ms - gesture.downMs, snapMs);
        gesture.startMs = gesture.bar.startMs + shiftMs;
        gesture.endMs = gesture.bar.endMs + shiftMs;
      } else {
        const edgeMs = snapToStep(point.ms, snapMs, zone);
        if (gesture.edge === 'start') gesture.startMs = Math.min(edgeMs, gesture.endMs - snapMs);
        else gesture.endMs = Math.max(edgeMs, gesture.startMs + snapMs);
      }
      const refusal = verdict(target, gesture, gesture.bar.id);
      setMoving({
        barId: gesture.bar.id,
        rowIndex: gesture.rowIndex,
        startMs: gesture.startMs,
        endMs: gesture.endMs,
        refused: !!refusal,
        xPx: point.x,
        yPx: point.y,
      });
      setMessage(
        refusal
          ? { text: refusalWords(refusal, zone), refused: true, xPx: point.x, yPx: point.y }
          : undefined,
      );
      return;
    }
    if (changeRefusal !== undefined) {
      if (Math.abs(point.ms - gesture.anchorMs) < 4 * scaleRef.current.msPerPx) return;
      return block(changeRefusal, point);
    }
    gesture.endMs = snapToStep(point.ms, snapMs, zone);
    gesture.moved = true;
    const window = {
      startMs: Math.min(gesture.anchorMs, gesture.endMs),
      endMs: Math.max(gesture.anchorMs, gesture.endMs),
    };
    const refusal = verdict(target, window);
    setDrag({
      rowIndex: gesture.rowIndex,
      ...window,
      refused: !!refusal && refusal.kind !== 'empty',
      xPx: point.x,
      yPx: point.y,
    });
    setMessage(
      refusal
        ? {
            text: refusalWords(refusal, zone),
            refused: refusal.kind !== 'empty',
            xPx: point.x,
            yPx: point.y,
          }
        : undefined,
    );
  };

  const onPointerUp = () => {
    const gesture = gestureRef.current;
    gestureRef.current = undefined;
    setDrag(undefined);
    setMoving(undefined);
    // Why a drag did nothing stays until the next press or key: it was the whole answer.
    if (gesture?.kind === 'blocked') return;
    // The drag is over, and with it what was said about it; a refused window is simply dropped.
    setMessage(undefined);
    if (!gesture || gesture.kind === 'pan') return;
    const target = rowTarget(rows, gesture.rowIndex);
    if (!target) return;
    if (gesture.kind === 'press') {
      options.setFocusedBarId(gesture.bar.id);
      setMessage(undefined);
      options.onSelectBar(target, gesture.bar);
      return;
    }
    if (gesture.kind === 'move') {
      const unchanged =
        gesture.startMs === gesture.bar.startMs && gesture.endMs === gesture.bar.endMs;
      if (unchanged || verdict(target, gesture, gesture.bar.id)) return;
      options.announce(
        `Moving command ${gesture.bar.id} to ${windowSpoken(gesture.startMs, gesture.endMs, zoneOf(target))}.`,
      );
      options.onMoveBar(target, gesture.bar, { startMs: gesture.startMs, endMs: gesture.endMs });
      return;
    }
    const window = {
      startMs: Math.min(gesture.anchorMs, gesture.endMs),
      endMs: Math.max(gesture.anchorMs, gesture.endMs),
    };
    if (!gesture.moved) {
      // A click on a ghost focuses it; on an empty part of a row it sets the keyboard's time.
      if (hoverGhost && hoverGhost.device.deviceId === target.device.deviceId) {
        options.setFocusedBarId(hoverGhost.ghost.id);
        return;
      }
      options.setFocusedBarId(undefined);
      options.setCursorMs(gesture.anchorMs);
      return;
    }
    if (verdict(target, window)) return;
    options.announce(`New window ${windowSpoken(window.startMs, window.endMs, zoneOf(target))}.`);
    options.onCreateWindow(target, window);
  };

  const cancelGesture = () => {
    gestureRef.current = undefined;
    setDrag(undefined);
    setMoving(undefined);
    setMessage(undefined);
  };

  const onContextMenu = (event: React.MouseEvent<HTMLCanvasElement>) => {
    if ((!options.onBarContextMenu && !options.onGhostContextMenu) || gestureRef.current) return;
    const rect = event.currentTarget.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    if (y < AXIS_HEIGHT_PX || x < LABEL_WIDTH_PX) return;
    const rowIndex = rowIndexAtY(rows, y - AXIS_HEIGHT_PX + scrollTopRef.current);
    const target = rowTarget(rows, rowIndex);
    const ms = xToTime(scaleRef.current, x - LABEL_WIDTH_PX);
    const ghosts = target ? dataRef.current.ghostsByDevice?.get(target.device.deviceId) : undefined;
    const row = rows[rowIndex];
    // Ghosts take a row's lower half (lib/draw.ts): there a queued change's window has a menu.
    if (
      ghosts?.length &&
      row &&
      y - AXIS_HEIGHT_PX + scrollTopRef.current >= row.y + row.height / 2
    ) {
      const ghost = ghostAt(ghosts, ms);
      if (!target || !ghost?.queued || !options.onGhostContextMenu) return;
      event.preventDefault();
      options.gridRef.current?.focus({ preventScroll: true });
      options.setFocusedRow(rowIndex);
      options.setFocusedBarId(ghost.id);
      options.onGhostContextMenu(target, ghost, rowIndex);
      return;
    }
    const bar = target
      ? barAt(dataRef.current.barsByDevice.get(target.device.deviceId) ?? [], ms)
      : undefined;
    if (!target || !bar || !options.onBarContextMenu) return;
    event.preventDefault();
    options.gridRef.current?.focus({ preventScroll: true });
    options.setFocusedRow(rowIndex);
    options.setFocusedBarId(bar.id);
    options.onBarContextMenu(target, bar, rowIndex);
  };

  const leave = () => {
    spotRef.current = undefined;
    setHover(undefined);
    setHoverGhost(undefined);
  };

  return {
    drag,
    moving,
    hover,
    hoverGhost,
    cancelGesture,
    pointerSpot: () => spotRef.current,
    leave,
    canvasHandlers: {
      onPointerDown,
      onPointerMove,
      onPointerUp,
      onPointerCancel: onPointerUp,
      onPointerLeave: leave,
      onContextMenu,
    },
  };
}
