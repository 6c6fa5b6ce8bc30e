import { useRef, useState, type RefObject } from 'react';
import { isEditableStatus } from '../../../../domain/command.ts';
import type { WindowMs } from '../../../../domain/time-window.ts';
import { edgeUnder, type BarEdge } from '../lib/bar-edge.ts';
import { barAt, type Bar } from '../lib/bars.ts';
import { dragRefusal } from '../lib/drag-refusal.ts';
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

/** A press on the canvas and what it turned into. */
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
    };

/**
 * Feedback on a drag, shown beside the pointer over the grid: a refusal (announced as an alert)
 * or a hint. `xPx`, `yPx`: the pointer in canvas CSS pixels.
 */
export interface TimelineMessage {
  text: string;
  refused: boolean;
  xPx?: number;
  yPx?: number;
}

/** The bar under the pointer, for the hover tooltip; x and y in canvas CSS pixels. */
export interface HoverTarget extends RowTarget {
  bar: Bar;
  x: number;
  y: number;
}

/** The ghost window under the pointer, for its hover card; x and y in canvas CSS pixels. */
export interface GhostHoverTarget extends RowTarget {
  ghost: GhostWindow;
  x: number;
  y: number;
}

/** What the gestures read at the moment of the event (the latest props). */
export interface GestureData {
  barsByDevice: ReadonlyMap<string, readonly Bar[]>;
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]> | undefined;
  /** True when the view only shows: a drag pans, nothing is drawn, moved or resized. */
  readOnly?: boolean | undefined;
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
  onCreateWindow: (target: RowTarget, window: WindowMs) => void;
  onSelectBar: (target: RowTarget, bar: Bar) => void;
  onMoveBar: (target: RowTarget, bar: Bar, window: WindowMs) => void;
}

/**
 * Pointer gestures on the canvas: drag the axis to pan; drag on an empty part of a row to draw
 * a new window, snapped to `snapMs` on the site clock; press a bar to select it; drag an editable
 * (received) bar to move it, or its ends to resize it. While drawing or moving, the drag
 * rule (`dragRefusal`: no overlap with an active command, no start in the past) is checked on
 * every move and its refusal shown; a refused window is never handed on. Read-only, a drag
 * anywhere pans. Hovering the lower half of a row that holds ghost windows shows the ghost's
 * card instead of a bar's.
 */
export function usePointerGestures(options: PointerGestureOptions) {
  const { rows, utc, snapMs, dataRef, scaleRef, scrollTopRef, setMessage } = options;
  const gestureRef = useRef<Gesture | undefined>(undefined);
  const [drag, setDrag] = useState<DragPreview>();
  const [moving, setMoving] = useState<MovingPreview>();
  const [hover, setHover] = useState<HoverTarget>();
  const [hoverGhost, setHoverGhost] = useState<GhostHoverTarget>();

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
    if (point.y < AXIS_HEIGHT_PX || dataRef.current.readOnly) {
      gestureRef.current = { kind: 'pan', lastX: point.x };
      return;
    }
    const target = rowTarget(rows, point.rowIndex);
    if (!target) return;
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
      setHover(bar && target ? { bar, ...target, x: point.x, y: point.y } : undefined);
    if (dataRef.current.readOnly) {
      event.currentTarget.style.cursor = bar || ghost ? 'default' : 'grab';
      return;
    }
    const edge = bar ? edgeUnder(bar, point.ms, scaleRef.current.msPerPx) : 'both';
    event.currentTarget.style.cursor =
      point.y < AXIS_HEIGHT_PX
        ? 'grab'
        : edge !== 'both'
          ? 'ew-resize'
          : bar && isEditableStatus(bar.status)
            ? 'move'
            : bar
              ? 'pointer'
              : 'crosshair';
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
    const target = rowTarget(rows, gesture.rowIndex);
    if (!target) return;
    const zone = zoneOf(target);
    if (gesture.kind === 'press') {
      if (Math.abs(point.x - gesture.downX) < 4 || !isEditableStatus(gesture.bar.status)) return;
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
        startMs: gesture.startMs,
        endMs: gesture.endMs,
        refused: !!refusal,
      });
      setMessage(
        refusal
          ? { text: refusalWords(refusal, zone), refused: true, xPx: point.x, yPx: point.y }
          : undefined,
      );
      return;
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
      setMessage(undefined);
      options.onMoveBar(target, gesture.bar, { startMs: gesture.startMs, endMs: gesture.endMs });
      return;
    }
    const window = {
      startMs: Math.min(gesture.anchorMs, gesture.endMs),
      endMs: Math.max(gesture.anchorMs, gesture.endMs),
    };
    if (!gesture.moved || verdict(target, window)) return;
    setMessage(undefined);
    options.onCreateWindow(target, window);
  };

  /** Drops a drag in progress (Escape) without handing anything on. */
  const cancelGesture = () => {
    gestureRef.current = undefined;
    setDrag(undefined);
    setMoving(undefined);
    setMessage(undefined);
  };

  return {
    drag,
    moving,
    hover,
    hoverGhost,
    cancelGesture,
    canvasHandlers: {
      onPointerDown,
      onPointerMove,
      onPointerUp,
      onPointerCancel: onPointerUp,
      onPointerLeave: () => {
        setHover(undefined);
        setHoverGhost(undefined);
      },
    },
  };
}
