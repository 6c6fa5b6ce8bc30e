import { useCallback, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Site } from '../../../../domain/device.ts';
import type { WindowMs } from '../../../../domain/time-window.ts';
import { useCanvasFrame, type FrameSource } from '../hooks/use-canvas-frame.ts';
import { useCanvasSize } from '../hooks/use-canvas-size.ts';
import { usePointerGestures, type TimelineMessage } from '../hooks/use-pointer-gestures.ts';
import { useScrollPosition } from '../hooks/use-scroll-position.ts';
import { useTimeScale } from '../hooks/use-time-scale.ts';
import { useTimelineKeys } from '../hooks/use-timeline-keys.ts';
import { useViewportReport } from '../hooks/use-viewport-report.ts';
import { useWheelZoom } from '../hooks/use-wheel-zoom.ts';
import type { Bar } from '../lib/bars.ts';
import { isGhostId, type GhostWindow } from '../lib/ghosts.ts';
import { AXIS_HEIGHT_PX, LABEL_WIDTH_PX } from '../lib/draw.ts';
import type { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import { prefersReducedMotion } from '../lib/reduced-motion.ts';
import { shownCard } from '../lib/shown-card.ts';
import { buildRows, nextDeviceRow, rowTarget, visibleRowRange } from '../lib/rows.ts';
import { createTransitionTracker } from '../lib/status-transitions.ts';
import { timeToX, visibleRange, type TimeScale } from '../lib/time-scale.ts';
import type { RowTarget, TimelineViewport } from '../lib/timeline-types.ts';
import { useDesignTokens } from '../../../lib/design-tokens.ts';
import { AccessibleRows } from './accessible-rows.tsx';
import { WindowCard } from './bar-tooltip.tsx';
import { TimelineToolbar } from './timeline-toolbar.tsx';
// The canvas reads its colours from the tokens (useDesignTokens): wherever the view is rendered
// (the app, a test, the bench page), they are loaded with it. One module, so loaded once.
import '../../../styles/tokens.css';
import './timeline.css';

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
  /** The page's outcome line (role status), kept in the toolbar's row so it never moves the grid. */
  notice?: ReactNode;
  onViewportChange: (viewport: TimelineViewport) => void;
  onCreateWindow: (target: RowTarget, window: WindowMs) => void;
  onSelectBar: (target: RowTarget, bar: Bar) => void;
  onMoveBar: (target: RowTarget, bar: Bar, window: WindowMs) => void;
  onNewCommand: (target: RowTarget, atMs: number) => void;
  /**
   * Windows not sent yet by device ID (a dispatch plan's rows), drawn as ghost bars under the
   * device's command windows, named in the accessible grid, reached with the arrow keys and
   * explained in a card on hover or keyboard focus. Each list sorted by start (`ghostsByDevice`
   * in lib/ghosts.ts).
   */
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]>;
  /**
   * Only shows (a viewer's timeline, a dispatch plan's preview): no drawing, moving or New
   * command, a drag anywhere pans, and the help says nothing of dragging to schedule.
   */
  readOnly?: boolean;
  /**
   * The first view: `atMs` a quarter from its left edge and `spanMs` across it, epoch ms and ms;
   * default `nowMs` and a day.
   */
  firstView?: { atMs: number; spanMs: number };
}

/** Room the pointer message may take, in CSS pixels (its CSS max-width). */
const MESSAGE_WIDTH_PX = 420;

/** Places the pointer message below and right of the pointer, or left of it near the right edge. */
function messageStyle(message: TimelineMessage | undefined, widthPx: number) {
  if (message?.xPx === undefined || message.yPx === undefined) return undefined;
  const left =
    message.xPx + 16 + MESSAGE_WIDTH_PX <= widthPx
      ? message.xPx + 16
      : Math.max(0, message.xPx - 16 - MESSAGE_WIDTH_PX);
  return { left, top: message.yPx + 20 };
}

/**
 * The timeline: a canvas drawing only the visible rows and time range, and an accessible DOM
 * layer (a grid of the visible rows, the focused cell named through aria-activedescendant) for
 * keyboard and screen reader users. Bars whose status changes between data versions crossfade
 * to their new colour in place (never scrolling or zooming), unless reduced motion is asked
 * for. See docs/decisions/001-timeline-rendering.md.
 */
export function TimelineView(props: TimelineViewProps) {
  const { sites, filter, utc, barsByDevice } = props;
  const layout = useMemo(() => buildRows(sites, filter), [sites, filter]);
  const { rows } = layout;
  const scrollerRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const size = useCanvasSize(scrollerRef, props.heightPx);
  const [focusedRow, setFocusedRow] = useState(() => nextDeviceRow(rows, -1, 1));
  const [focusedBarId, setFocusedBarId] = useState<string>();
  const [cursorMs, setCursorMs] = useState<number>();
  const [gridFocused, setGridFocused] = useState(false);
  // Which card shows follows the last input: keys show the focused window's, the pointer its own.
  const [keyboardLast, setKeyboardLast] = useState(false);
  const [message, setMessage] = useState<TimelineMessage>();
  const [transitions] = useState(createTransitionTracker);
  const tokens = useDesignTokens();

  const timeWidth = Math.max(1, size.width - LABEL_WIDTH_PX);
  const canvasHeight = size.height;
  const rowsHeight = canvasHeight - AXIS_HEIGHT_PX;

  const frameSourceRef = useRef<FrameSource>(undefined);
  const { requestDraw, drawNow } = useCanvasFrame(canvasRef, frameSourceRef);
  // Pan and scroll change these attributes (read by the e2e) and the canvas without a render.
  const onScaleChange = useCallback(
    (next: TimeScale) => {
      canvasRef.current?.setAttribute('data-origin-ms', String(next.originMs));
      canvasRef.current?.setAttribute('data-ms-per-px', String(next.msPerPx));
      requestDraw();
    },
    [requestDraw],
  );
  const onScrollChange = (scrollTopPx: number) => {
    canvasRef.current?.setAttribute('data-scroll-top', String(scrollTopPx));
    requestDraw();
  };
  const { scale, scaleRef, applyScale, panScale } = useTimeScale(
    props.firstView?.atMs ?? props.nowMs,
    timeWidth,
    onScaleChange,
    props.firstView?.spanMs,
  );
  const { scrollTop, scrollTopRef, visible, held, onScroll } = useScrollPosition(
    rows,
    rowsHeight,
    onScrollChange,
  );
  useLayoutEffect(() => {
    onScaleChange(scaleRef.current);
    canvasRef.current?.setAttribute('data-scroll-top', String(scrollTopRef.current));
  }, [onScaleChange, scaleRef, scrollTopRef]);
  useWheelZoom(scrollerRef, scaleRef, panScale, timeWidth);
  const range = visibleRange(scale, timeWidth);
  useViewportReport(rows, visible.first, visible.last, range, props.onViewportChange);

  const gestureDataRef = useRef(props);
  useLayoutEffect(() => {
    gestureDataRef.current = props;
  });
  const { drag, moving, hover, hoverGhost, cancelGesture, canvasHandlers } = usePointerGestures({
    rows,
    utc,
    snapMs: props.snapMs,
    dataRef: gestureDataRef,
    scaleRef,
    scrollTopRef,
    gridRef: scrollerRef,
    panScale,
    setFocusedRow,
    setFocusedBarId,
    setMessage,
    onCreateWindow: props.onCreateWindow,
    onSelectBar: props.onSelectBar,
    onMoveBar: props.onMoveBar,
  });
  const { onKeyDown, newCommandForFocus } = useTimelineKeys({
    rows,
    barsByDevice,
    ghostsByDevice: props.ghostsByDevice,
    readOnly: props.readOnly,
    nowMs: props.nowMs,
    timeWidthPx: timeWidth,
    rowsHeightPx: rowsHeight,
    focusedRow,
    focusedBarId,
    cursorMs,
    scaleRef,
    scrollerRef,
    applyScale,
    setFocusedRow,
    setFocusedBarId,
    setCursorMs,
    cancelGesture,
    onSelectBar: props.onSelectBar,
    onNewCommand: props.onNewCommand,
  });

  // The canvas reads this render's values, also when it draws between renders (pan, scroll).
  const frameOf: FrameSource = (widthPx, heightPx, timeMs) => {
    const visible = visibleRowRange(rows, scrollTopRef.current, heightPx - AXIS_HEIGHT_PX);
    return {
      widthPx,
      heightPx,
      scale: scaleRef.current,
      rows,
      scrollTopPx: scrollTopRef.current,
      firstRow: visible.first,
      lastRow: visible.last,
      barsByDevice,
      nowMs: props.nowMs,
      utc,
      focusedRow,
      focusedBarId,
      selectedBarId: props.selectedBarId,
      drag,
      moving,
      transitions: transitions.at(barsByDevice, timeMs, prefersReducedMotion),
      timeMs,
      tokens,
      ...(props.ghostsByDevice ? { ghostsByDevice: props.ghostsByDevice } : {}),
    };
  };
  useLayoutEffect(() => {
    frameSourceRef.current = frameOf;
    drawNow();
  });

  const focusedTarget = rowTarget(rows, focusedRow);
  const inRange = (bar: { startMs: number; endMs: number }) =>
    bar.endMs > range.startMs && bar.startMs < range.endMs;
  const focusedBar =
    focusedBarId !== undefined && focusedTarget
      ? barsByDevice
          .get(focusedTarget.device.deviceId)
          ?.find((bar) => bar.id === focusedBarId && inRange(bar))
      : undefined;
  const focusedGhost =
    isGhostId(focusedBarId) && focusedTarget
      ? props.ghostsByDevice
          ?.get(focusedTarget.device.deviceId)
          ?.find((ghost) => ghost.id === focusedBarId && inRange(ghost))
      : undefined;
  const activeDescendant =
    focusedRow >= held.first && focusedRow <= held.last
      ? focusedBar || focusedGhost
        ? `tl-bar-${focusedBarId}`
        : `tl-row-${focusedRow}`
      : undefined;
  const card = shownCard({
    hoverBar: hover,
    hoverGhost,
    gridFocused,
    keyboardLast,
    focused: !focusedTarget
      ? undefined
      : focusedBar
        ? { ...focusedTarget, bar: focusedBar }
        : focusedGhost
          ? { ...focusedTarget, ghost: focusedGhost }
          : undefined,
    focusedRowTopPx: (rows[focusedRow]?.y ?? 0) + AXIS_HEIGHT_PX - scrollTop,
    xOfMs: (ms) => Math.max(LABEL_WIDTH_PX, LABEL_WIDTH_PX + timeToX(scale, ms)),
  });

  return (
    <div className="timeline">
      <div className="timeline-toolbar-row">
        <TimelineToolbar
          scaleRef={scaleRef}
          applyScale={applyScale}
          timeWidthPx={timeWidth}
          nowMs={props.nowMs}
          focusedDeviceName={focusedTarget?.device.name}
          onNewCommand={newCommandForFocus}
          readOnly={props.readOnly}
        />
        {props.notice}
        <details className="timeline-help">
          <summary>Mouse and keys</summary>
          <p id="timeline-help-text">
            {props.readOnly
              ? 'Drag the time axis to pan; Ctrl+wheel zooms around the pointer.'
              : 'Drag on an empty part of a row to schedule a window; drag a received bar to move it, or its ends to resize it; drag the time axis to pan; Ctrl+wheel zooms around the pointer.'}{' '}
            Keys: arrows move between devices and commands, Enter opens, Shift+arrows pan, + and −
            zoom, Home goes to now.
          </p>
        </details>
      </div>
      <div className="timeline-body">
        <div
          ref={scrollerRef}
          role="grid"
          tabIndex={0}
          aria-label="Command timeline"
          aria-rowcount={rows.length}
          aria-activedescendant={activeDescendant}
          aria-describedby="timeline-help-text"
          className="timeline-grid timeline-scroller"
          style={
            props.heightPx === undefined ? undefined : { height: props.heightPx, flex: 'none' }
          }
          onKeyDown={(event) => {
            setKeyboardLast(true);
            onKeyDown(event);
          }}
          onFocus={() => setGridFocused(true)}
          onBlur={() => setGridFocused(false)}
          onScroll={onScroll}
        >
          <canvas
            ref={canvasRef}
            aria-hidden="true"
            data-testid="timeline-canvas"
            className="timeline-canvas"
            style={{ height: canvasHeight }}
            {...canvasHandlers}
            onPointerMove={(event) => {
              setKeyboardLast(false);
              canvasHandlers.onPointerMove(event);
            }}
          />
          <div
            style={{ height: Math.max(0, layout.totalHeightPx + AXIS_HEIGHT_PX - canvasHeight) }}
          />
          <AccessibleRows
            rows={rows}
            first={held.first}
            last={held.last}
            barsByDevice={barsByDevice}
            ghostsByDevice={props.ghostsByDevice}
            range={range}
            utc={utc}
            selectedBarId={props.selectedBarId}
          />
        </div>
        {/* Beside the pointer, over the grid: feedback never moves what is being dragged. */}
        <div
          role={message?.refused ? 'alert' : 'status'}
          className={message?.refused ? 'timeline-message refused' : 'timeline-message'}
          style={messageStyle(message, size.width)}
        >
          {message?.text}
        </div>
        {card ? (
          <WindowCard
            card={card}
            timeZone={utc ? 'UTC' : card.site.timeZone}
            boundsWidthPx={size.width}
            boundsHeightPx={size.height}
          />
        ) : null}
      </div>
    </div>
  );
}
