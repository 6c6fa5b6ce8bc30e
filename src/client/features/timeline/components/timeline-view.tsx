import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { Device, Site } from '../../../../domain/device.ts';
import type { WindowMs } from '../../../../domain/time-window.ts';
import { barAccessibleName, barAt, type Bar } from '../lib/bars.ts';
import { dragRefusal, type DragRefusal } from '../lib/drag-refusal.ts';
import { AXIS_HEIGHT_PX, drawFrame, LABEL_WIDTH_PX, type DragPreview } from '../lib/draw.ts';
import type { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import { buildRows, nextDeviceRow, rowIndexAtY, visibleRowRange } from '../lib/rows.ts';
import { snapToStep } from '../lib/snap.ts';
import {
  panBy,
  scaleForSpan,
  timeToX,
  visibleRange,
  xToTime,
  ZOOM_PRESETS,
  zoomAround,
  type TimeScale,
} from '../lib/time-scale.ts';
import { windowInZone } from '../lib/window-words.ts';
import { BarTooltip } from './bar-tooltip.tsx';
import './timeline.css';

/** What the view shows and where the data for it must come from. */
export interface TimelineViewport {
  deviceIds: string[];
  startMs: number;
  endMs: number;
}

export interface RowTarget {
  site: Site;
  device: Device;
}

export interface TimelineViewProps {
  sites: readonly Site[];
  filter: string;
  barsByDevice: ReadonlyMap<string, readonly Bar[]>;
  overlapIndex: (deviceId: string) => DeviceOverlapIndex | undefined;
  nowMs: number;
  utc: boolean;
  snapMs: number;
  selectedBarId: string | undefined;
  heightPx?: number;
  onViewportChange: (viewport: TimelineViewport) => void;
  onCreateWindow: (target: RowTarget, window: WindowMs) => void;
  onSelectBar: (target: RowTarget, bar: Bar) => void;
  onMoveBar: (target: RowTarget, bar: Bar, window: WindowMs) => void;
  onNewCommand: (target: RowTarget, atMs: number) => void;
}

type Gesture =
  | { kind: 'pan'; lastX: number }
  | { kind: 'create'; rowIndex: number; anchorMs: number; endMs: number; moved: boolean }
  | { kind: 'press'; rowIndex: number; bar: Bar; downX: number; downMs: number; edge: Edge }
  | {
      kind: 'move';
      rowIndex: number;
      bar: Bar;
      downMs: number;
      edge: Edge;
      startMs: number;
      endMs: number;
    };

/** Which part of a received bar a drag changes: the whole window, or one end (resize). */
type Edge = 'both' | 'start' | 'end';
const EDGE_GRAB_PX = 6;

function edgeUnder(bar: Bar, ms: number, msPerPx: number): Edge {
  if (bar.status !== 'received') return 'both';
  const widthPx = (bar.endMs - bar.startMs) / msPerPx;
  if (widthPx < 3 * EDGE_GRAB_PX) return 'both';
  if (Math.abs(ms - bar.startMs) / msPerPx <= EDGE_GRAB_PX) return 'start';
  if (Math.abs(ms - bar.endMs) / msPerPx <= EDGE_GRAB_PX) return 'end';
  return 'both';
}

const HOUR_MS = 3_600_000;

/** Words for a refusal, naming the conflicting command and its window in the site's zone. */
export function refusalWords(refusal: DragRefusal, timeZone: string): string {
  if (refusal.kind === 'empty') return 'The window is empty: drag to give it a length.';
  if (refusal.kind === 'past') return 'Refused: the window starts in the past.';
  const { conflict } = refusal;
  return `Refused: overlaps command ${conflict.id} (${conflict.status}, ${windowInZone(
    conflict.startMs,
    conflict.endMs,
    timeZone,
  )}). Windows may touch but not overlap.`;
}

/**
 * The timeline: a canvas drawing only the visible rows and time range, and an accessible DOM
 * layer (a grid of the visible rows, the focused cell named through aria-activedescendant) for
 * keyboard and screen reader users. See docs/decisions/001-timeline-rendering.md.
 */
export function TimelineView(props: TimelineViewProps) {
  const { sites, filter, utc } = props;
  const layout = useMemo(() => buildRows(sites, filter), [sites, filter]);
  const scrollerRef = useRef<HTMLDivElement>(null);
  const gridRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState({ width: 1000, height: props.heightPx ?? 560 });
  const [scale, setScale] = useState<TimeScale>(() =>
    scaleForSpan(props.nowMs - 2 * HOUR_MS, 24 * HOUR_MS, 1000 - LABEL_WIDTH_PX),
  );
  const scaleRef = useRef(scale);
  const [scrollTop, setScrollTop] = useState(0);
  const scrollTopRef = useRef(0);
  const [focusedRow, setFocusedRow] = useState(() => nextDeviceRow(layout.rows, -1, 1));
  const [focusedBarId, setFocusedBarId] = useState<string>();
  const [cursorMs, setCursorMs] = useState<number>();
  const [gridFocused, setGridFocused] = useState(false);
  const [drag, setDrag] = useState<DragPreview>();
  const [moving, setMoving] = useState<{
    barId: string;
    startMs: number;
    endMs: number;
    refused: boolean;
  }>();
  const [message, setMessage] = useState<{ text: string; refused: boolean }>();
  const [hover, setHover] = useState<{
    bar: Bar;
    site: Site;
    device: Device;
    x: number;
    y: number;
  }>();
  const gestureRef = useRef<Gesture | undefined>(undefined);
  const propsRef = useRef(props);

  const timeWidth = Math.max(1, size.width - LABEL_WIDTH_PX);
  const canvasHeight = size.height;
  const rowsHeight = canvasHeight - AXIS_HEIGHT_PX;
  const { first, last } = visibleRowRange(layout.rows, scrollTop, rowsHeight);

  // Live values the canvas reads without React re-rendering on every pointer move.
  const frameRef = useRef({ focusedRow, focusedBarId, drag, moving });
  useLayoutEffect(() => {
    propsRef.current = props;
    frameRef.current = { focusedRow, focusedBarId, drag, moving };
  });

  const draw = useCallback(() => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    const dpr = window.devicePixelRatio || 1;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const p = propsRef.current;
    const live = frameRef.current;
    const range = visibleRowRange(layout.rows, scrollTopRef.current, height - AXIS_HEIGHT_PX);
    drawFrame(ctx, {
      widthPx: width,
      heightPx: height,
      scale: scaleRef.current,
      rows: layout.rows,
      scrollTopPx: scrollTopRef.current,
      firstRow: range.first,
      lastRow: range.last,
      barsByDevice: p.barsByDevice,
      nowMs: p.nowMs,
      utc: p.utc,
      focusedRow: live.focusedRow,
      focusedBarId: live.focusedBarId,
      selectedBarId: p.selectedBarId,
      drag: live.drag,
      moving: live.moving,
    });
  }, [layout]);

  const rafRef = useRef(0);
  const requestDraw = useCallback(() => {
    if (rafRef.current) return;
    rafRef.current = requestAnimationFrame(() => {
      rafRef.current = 0;
      draw();
    });
  }, [draw]);
  useEffect(() => () => cancelAnimationFrame(rafRef.current), []);

  useLayoutEffect(() => {
    draw();
  });

  useLayoutEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    const observer = new ResizeObserver(() => {
      setSize({
        width: scroller.clientWidth,
        height: props.heightPx ?? scroller.clientHeight,
      });
    });
    observer.observe(scroller);
    return () => observer.disconnect();
  }, [props.heightPx]);

  // Tell the data layer what is in view, at most every 150 ms.
  const deviceIdsInView = useMemo(() => {
    const ids: string[] = [];
    for (let i = first; i <= last; i++) {
      const row = layout.rows[i];
      if (row?.kind === 'device') ids.push(row.device.deviceId);
    }
    return ids;
  }, [layout, first, last]);
  const range = visibleRange(scale, timeWidth);
  useEffect(() => {
    const timer = setTimeout(
      () =>
        propsRef.current.onViewportChange({
          deviceIds: deviceIdsInView,
          startMs: range.startMs,
          endMs: range.endMs,
        }),
      150,
    );
    return () => clearTimeout(timer);
  }, [deviceIdsInView, range.startMs, range.endMs]);

  const applyScale = useCallback(
    (next: TimeScale) => {
      scaleRef.current = next;
      setScale(next);
      requestDraw();
    },
    [requestDraw],
  );

  // Wheel: Ctrl/Cmd zooms around the pointer, Shift or a sideways wheel pans, else native scroll.
  useEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    const onWheel = (event: WheelEvent) => {
      const x = event.clientX - scroller.getBoundingClientRect().left - LABEL_WIDTH_PX;
      if (event.ctrlKey || event.metaKey) {
        event.preventDefault();
        applyScale(
          zoomAround(scaleRef.current, Math.max(0, x), Math.exp(event.deltaY * 0.002), timeWidth),
        );
      } else if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
        event.preventDefault();
        applyScale(panBy(scaleRef.current, event.shiftKey ? event.deltaY : event.deltaX));
      }
    };
    scroller.addEventListener('wheel', onWheel, { passive: false });
    return () => scroller.removeEventListener('wheel', onWheel);
  }, [applyScale, timeWidth]);

  const targetOf = (rowIndex: number): RowTarget | undefined => {
    const row = layout.rows[rowIndex];
    return row?.kind === 'device' ? { site: row.site, device: row.device } : undefined;
  };
  const zoneOf = (target: RowTarget) => (utc ? 'UTC' : target.site.timeZone);

  const pointAt = (event: React.PointerEvent) => {
    const rect = event.currentTarget.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    const rowIndex =
      y < AXIS_HEIGHT_PX ? -1 : rowIndexAtY(layout.rows, y - AXIS_HEIGHT_PX + scrollTopRef.current);
    return { x, y, rowIndex, ms: xToTime(scaleRef.current, x - LABEL_WIDTH_PX) };
  };

  const verdict = (target: RowTarget, window: WindowMs, ignoreId?: string) =>
    dragRefusal(
      window,
      propsRef.current.nowMs,
      propsRef.current.overlapIndex(target.device.deviceId),
      ignoreId,
    );

  const onPointerDown = (event: React.PointerEvent<HTMLCanvasElement>) => {
    if (event.button !== 0) return;
    gridRef.current?.focus({ preventScroll: true });
    const point = pointAt(event);
    event.currentTarget.setPointerCapture(event.pointerId);
    if (point.y < AXIS_HEIGHT_PX) {
      gestureRef.current = { kind: 'pan', lastX: point.x };
      return;
    }
    const target = targetOf(point.rowIndex);
    if (!target) return;
    setFocusedRow(point.rowIndex);
    if (point.x < LABEL_WIDTH_PX) return;
    const bars = propsRef.current.barsByDevice.get(target.device.deviceId) ?? [];
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
    const anchorMs = snapToStep(point.ms, props.snapMs, zoneOf(target));
    gestureRef.current = {
      kind: 'create',
      rowIndex: point.rowIndex,
      anchorMs,
      endMs: anchorMs,
      moved: false,
    };
  };

  const onPointerMove = (event: React.PointerEvent<HTMLCanvasElement>) => {
    const gesture = gestureRef.current;
    const point = pointAt(event);
    if (!gesture) {
      const target = targetOf(point.rowIndex);
      const bar =
        target && point.x >= LABEL_WIDTH_PX
          ? barAt(propsRef.current.barsByDevice.get(target.device.deviceId) ?? [], point.ms)
          : undefined;
      if (bar?.id !== hover?.bar.id)
        setHover(bar && target ? { bar, ...target, x: point.x, y: point.y } : undefined);
      const edge = bar ? edgeUnder(bar, point.ms, scaleRef.current.msPerPx) : 'both';
      event.currentTarget.style.cursor =
        point.y < AXIS_HEIGHT_PX
          ? 'grab'
          : edge !== 'both'
            ? 'ew-resize'
            : bar?.status === 'received'
              ? 'move'
              : bar
                ? 'pointer'
                : 'crosshair';
      return;
    }
    if (gesture.kind === 'pan') {
      applyScale(panBy(scaleRef.current, gesture.lastX - point.x));
      gesture.lastX = point.x;
      return;
    }
    const target = targetOf(gesture.rowIndex);
    if (!target) return;
    const zone = zoneOf(target);
    if (gesture.kind === 'press') {
      if (Math.abs(point.x - gesture.downX) < 4 || gesture.bar.status !== 'received') return;
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
        const shiftMs = snapToStep(point.ms - gesture.downMs, props.snapMs);
        gesture.startMs = gesture.bar.startMs + shiftMs;
        gesture.endMs = gesture.bar.endMs + shiftMs;
      } else {
        const edgeMs = snapToStep(point.ms, props.snapMs, zone);
        if (gesture.edge === 'start')
          gesture.startMs = Math.min(edgeMs, gesture.endMs - props.snapMs);
        else gesture.endMs = Math.max(edgeMs, gesture.startMs + props.snapMs);
      }
      const refusal = verdict(target, gesture, gesture.bar.id);
      setMoving({
        barId: gesture.bar.id,
        startMs: gesture.startMs,
        endMs: gesture.endMs,
        refused: !!refusal,
      });
      setMessage(refusal ? { text: refusalWords(refusal, zone), refused: true } : undefined);
      return;
    }
    gesture.endMs = snapToStep(point.ms, props.snapMs, zone);
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
        ? { text: refusalWords(refusal, zone), refused: refusal.kind !== 'empty' }
        : undefined,
    );
  };

  const onPointerUp = () => {
    const gesture = gestureRef.current;
    gestureRef.current = undefined;
    setDrag(undefined);
    setMoving(undefined);
    if (!gesture || gesture.kind === 'pan') return;
    const target = targetOf(gesture.rowIndex);
    if (!target) return;
    if (gesture.kind === 'press') {
      setFocusedBarId(gesture.bar.id);
      setMessage(undefined);
      props.onSelectBar(target, gesture.bar);
      return;
    }
    if (gesture.kind === 'move') {
      const unchanged =
        gesture.startMs === gesture.bar.startMs && gesture.endMs === gesture.bar.endMs;
      if (unchanged || verdict(target, gesture, gesture.bar.id)) return;
      setMessage(undefined);
      props.onMoveBar(target, gesture.bar, { startMs: gesture.startMs, endMs: gesture.endMs });
      return;
    }
    const window = {
      startMs: Math.min(gesture.anchorMs, gesture.endMs),
      endMs: Math.max(gesture.anchorMs, gesture.endMs),
    };
    if (!gesture.moved || verdict(target, window)) return;
    setMessage(undefined);
    props.onCreateWindow(target, window);
  };

  const scrollRowIntoView = (rowIndex: number) => {
    const row = layout.rows[rowIndex];
    const scroller = scrollerRef.current;
    if (!row || !scroller) return;
    if (row.y < scroller.scrollTop) scroller.scrollTop = row.y - 26;
    else if (row.y + row.height > scroller.scrollTop + rowsHeight)
      scroller.scrollTop = row.y + row.height - rowsHeight;
  };

  const showTime = (ms: number) => {
    const current = scaleRef.current;
    const { startMs, endMs } = visibleRange(current, timeWidth);
    if (ms < startMs || ms > endMs)
      applyScale({ ...current, originMs: ms - (timeWidth / 4) * current.msPerPx });
  };

  const defaultCursorMs = () => {
    const { startMs, endMs } = visibleRange(scaleRef.current, timeWidth);
    const nowNext = snapToStep(props.nowMs + 15 * 60_000, 15 * 60_000);
    return nowNext > startMs && nowNext < endMs
      ? nowNext
      : Math.max(nowNext, snapToStep((startMs + endMs) / 2, 15 * 60_000));
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLDivElement>) => {
    const target = targetOf(focusedRow);
    const bars = target ? (props.barsByDevice.get(target.device.deviceId) ?? []) : [];
    const focusedBar = bars.find((bar) => bar.id === focusedBarId);
    const key = event.key;
    if ((key === 'ArrowDown' || key === 'ArrowUp') && !event.shiftKey) {
      const next = nextDeviceRow(layout.rows, focusedRow, key === 'ArrowDown' ? 1 : -1);
      setFocusedRow(next);
      setFocusedBarId(undefined);
      scrollRowIntoView(next);
    } else if ((key === 'ArrowLeft' || key === 'ArrowRight') && event.shiftKey) {
      applyScale(panBy(scaleRef.current, (key === 'ArrowRight' ? 1 : -1) * (timeWidth / 4)));
    } else if (key === 'ArrowLeft' || key === 'ArrowRight') {
      const fromMs = focusedBar?.startMs ?? cursorMs ?? defaultCursorMs();
      const next =
        key === 'ArrowRight'
          ? bars.find((bar) => (focusedBar ? bar.startMs > fromMs : bar.endMs > fromMs))
          : bars.findLast((bar) => bar.startMs < fromMs);
      if (next) {
        setFocusedBarId(next.id);
        setCursorMs(next.startMs);
        showTime(next.startMs);
      }
    } else if (key === '+' || key === '=' || key === '-') {
      applyScale(zoomAround(scaleRef.current, timeWidth / 2, key === '-' ? 2 : 0.5, timeWidth));
    } else if (key === 'Home') {
      showTime(props.nowMs);
      applyScale({
        ...scaleRef.current,
        originMs: props.nowMs - (timeWidth / 4) * scaleRef.current.msPerPx,
      });
    } else if (key === 'Enter' && target) {
      if (focusedBar) props.onSelectBar(target, focusedBar);
      else props.onNewCommand(target, cursorMs ?? defaultCursorMs());
    } else if (key === 'Escape') {
      gestureRef.current = undefined;
      setDrag(undefined);
      setMoving(undefined);
      setMessage(undefined);
    } else return;
    event.preventDefault();
  };

  const newCommandForFocus = () => {
    const target = targetOf(focusedRow);
    if (target) props.onNewCommand(target, cursorMs ?? defaultCursorMs());
  };

  // The accessible layer: the visible device rows and their bars in view, named in words.
  const a11yRows: React.ReactNode[] = [];
  for (let i = first; i <= last; i++) {
    const row = layout.rows[i];
    if (row?.kind !== 'device') continue;
    const zone = utc ? 'UTC' : row.site.timeZone;
    const bars = (props.barsByDevice.get(row.device.deviceId) ?? []).filter(
      (bar) => bar.endMs > range.startMs && bar.startMs < range.endMs,
    );
    a11yRows.push(
      <div role="row" key={row.device.deviceId} aria-rowindex={i + 1}>
        <div role="rowheader" id={`tl-row-${i}`}>
          {row.device.name} ({row.device.deviceId}, {row.site.name})
        </div>
        {bars.map((bar) => (
          <div
            role="gridcell"
            key={bar.id}
            id={`tl-bar-${bar.id}`}
            aria-selected={bar.id === props.selectedBarId}
            data-status={bar.status}
          >
            {barAccessibleName(row.device.name, bar, zone)}
          </div>
        ))}
      </div>,
    );
  }
  const focusedBarVisible =
    focusedBarId !== undefined &&
    (props.barsByDevice.get(targetOf(focusedRow)?.device.deviceId ?? '') ?? []).some(
      (bar) => bar.id === focusedBarId && bar.endMs > range.startMs && bar.startMs < range.endMs,
    );
  const activeDescendant =
    focusedRow >= first && focusedRow <= last
      ? focusedBarVisible
        ? `tl-bar-${focusedBarId}`
        : `tl-row-${focusedRow}`
      : undefined;
  const focusedTarget = targetOf(focusedRow);
  const focusedBar =
    focusedBarVisible && focusedTarget
      ? props.barsByDevice
          .get(focusedTarget.device.deviceId)
          ?.find((bar) => bar.id === focusedBarId)
      : undefined;
  const focusedRowTop = (layout.rows[focusedRow]?.y ?? 0) + AXIS_HEIGHT_PX - scrollTop;

  return (
    <div className="timeline">
      <div className="timeline-toolbar" role="toolbar" aria-label="Timeline view">
        {ZOOM_PRESETS.map((preset) => (
          <button
            type="button"
            key={preset.id}
            onClick={() =>
              applyScale(
                scaleForSpan(
                  Math.min(scaleRef.current.originMs, props.nowMs - preset.spanMs / 8),
                  preset.spanMs,
                  timeWidth,
                ),
              )
            }
          >
            {preset.label}
          </button>
        ))}
        <button
          type="button"
          aria-label="Zoom in"
          onClick={() => applyScale(zoomAround(scaleRef.current, timeWidth / 2, 0.5, timeWidth))}
        >
          +
        </button>
        <button
          type="button"
          aria-label="Zoom out"
          onClick={() => applyScale(zoomAround(scaleRef.current, timeWidth / 2, 2, timeWidth))}
        >
          −
        </button>
        <button
          type="button"
          aria-label="Earlier"
          onClick={() => applyScale(panBy(scaleRef.current, -timeWidth / 4))}
        >
          ◀
        </button>
        <button
          type="button"
          onClick={() =>
            applyScale({
              ...scaleRef.current,
              originMs: props.nowMs - (timeWidth / 4) * scaleRef.current.msPerPx,
            })
          }
        >
          Now
        </button>
        <button
          type="button"
          aria-label="Later"
          onClick={() => applyScale(panBy(scaleRef.current, timeWidth / 4))}
        >
          ▶
        </button>
        <button type="button" onClick={newCommandForFocus} disabled={!focusedTarget}>
          New command{focusedTarget ? ` for ${focusedTarget.device.name}` : ''}
        </button>
      </div>
      <p className="timeline-help">
        Drag on an empty part of a row to schedule a window; drag a received bar to move it, or its
        ends to resize it; drag the time axis to pan. Keys: arrows move between devices and
        commands, Enter opens, Shift+arrows pan, + and − zoom.
      </p>
      <div
        role={message?.refused ? 'alert' : 'status'}
        className={message?.refused ? 'timeline-message refused' : 'timeline-message'}
      >
        {message?.text}
      </div>
      <div className="timeline-body">
        <div
          ref={(element) => {
            gridRef.current = element;
            scrollerRef.current = element;
          }}
          role="grid"
          tabIndex={0}
          aria-label="Command timeline"
          aria-rowcount={layout.rows.length}
          aria-activedescendant={activeDescendant}
          className="timeline-grid timeline-scroller"
          style={{ height: props.heightPx ?? 560 }}
          onKeyDown={onKeyDown}
          onFocus={() => setGridFocused(true)}
          onBlur={() => setGridFocused(false)}
          onScroll={(event) => {
            scrollTopRef.current = event.currentTarget.scrollTop;
            setScrollTop(event.currentTarget.scrollTop);
            requestDraw();
          }}
        >
          <canvas
            ref={canvasRef}
            aria-hidden="true"
            data-testid="timeline-canvas"
            data-origin-ms={scale.originMs}
            data-ms-per-px={scale.msPerPx}
            data-scroll-top={scrollTop}
            className="timeline-canvas"
            style={{ height: canvasHeight }}
            onPointerDown={onPointerDown}
            onPointerMove={onPointerMove}
            onPointerUp={onPointerUp}
            onPointerCancel={onPointerUp}
            onPointerLeave={() => setHover(undefined)}
          />
          <div
            style={{
              height: Math.max(0, layout.totalHeightPx + AXIS_HEIGHT_PX - canvasHeight),
            }}
          />
          <div className="visually-hidden">{a11yRows}</div>
        </div>
        {!hover && gridFocused && focusedBar && focusedTarget && (
          <BarTooltip
            bar={focusedBar}
            device={focusedTarget.device}
            timeZone={utc ? 'UTC' : focusedTarget.site.timeZone}
            x={Math.max(LABEL_WIDTH_PX, LABEL_WIDTH_PX + timeToX(scale, focusedBar.startMs))}
            y={focusedRowTop + 18}
          />
        )}
        {hover && (
          <BarTooltip
            bar={hover.bar}
            device={hover.device}
            timeZone={utc ? 'UTC' : hover.site.timeZone}
            x={hover.x}
            y={hover.y}
          />
        )}
      </div>
    </div>
  );
}
