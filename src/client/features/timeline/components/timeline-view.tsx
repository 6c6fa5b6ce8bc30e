// Over 500 lines on purpose: one canvas view whose parts read the same render (docs/decisions/001-timeline-rendering.md).
import { useCallback, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { MenuAction } from '#client/components/menu.tsx';
import type { Site } from '#domain/device.ts';
import type { WindowMs } from '#domain/time-window.ts';
import { useCanvasFrame, type FrameSource } from '../hooks/use-canvas-frame.ts';
import { useCanvasSize } from '../hooks/use-canvas-size.ts';
import { usePointerGestures, type TimelineMessage } from '../hooks/use-pointer-gestures.ts';
import { useScrollPosition } from '../hooks/use-scroll-position.ts';
import { useTimeScale } from '../hooks/use-time-scale.ts';
import {
  rowsBetween,
  useTimelineKeys,
  type KeyMove,
  type RowSelection,
} from '../hooks/use-timeline-keys.ts';
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
import { windowReadout } from '../lib/window-words.ts';
import { useDesignTokens } from '#client/lib/design-tokens.ts';
import { AccessibleRows } from './accessible-rows.tsx';
import { BAR_MENU_BUTTON_PX, BarMenu, menuWindow, type BarMenuSubject } from './bar-menu.tsx';
import { WindowCard } from './bar-tooltip.tsx';
import { TimelineToolbar } from './timeline-toolbar.tsx';
// The canvas reads its colours from the tokens, wherever the view is rendered (app, test, bench).
import '#client/styles/tokens.css';
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
  /** Windows not sent yet by device ID, drawn as ghost bars; each list sorted by start (lib/ghosts.ts). */
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]>;
  /** Only shows (a viewer's timeline, a plan's preview): a drag anywhere pans. */
  readOnly?: boolean;
  /** The first view: `atMs` (epoch ms) a quarter from the left, `spanMs` across; default now and a day. */
  firstView?: { atMs: number; spanMs: number };
  /** Why the operator may not change anything: read-only, and a change attempt says this. */
  changeRefusal?: string | undefined;
  /** The choices of a window's menu (its "⋯" button, right-click, Shift+F10). Absent: no menu. */
  barMenuActions?: (target: RowTarget, bar: Bar) => readonly MenuAction[];
  /** The choices of a queued change's window's menu. Absent: no menu. */
  ghostMenuActions?: (target: RowTarget, ghost: GhostWindow) => readonly MenuAction[];
  onCopyBar?: (target: RowTarget, bar: Bar) => void;
  /** Ctrl/Cmd+V at `atMs` (epoch ms) on each target; returns why nothing was sent, or undefined. */
  onPaste?: (targets: RowTarget[], atMs: number) => string | undefined;
  /** The operator moved the view (pan, zoom, preset) and it rested: its start and span in ms. */
  onViewMoved?: (view: { startMs: number; spanMs: number }) => void;
}

/** Room the pointer message may take, in CSS pixels (its CSS max-width). */
const MESSAGE_WIDTH_PX = 420;

function messageStyle(message: TimelineMessage | undefined, widthPx: number) {
  if (message?.xPx === undefined || message.yPx === undefined) return undefined;
  const left =
    message.xPx + 16 + MESSAGE_WIDTH_PX <= widthPx
      ? message.xPx + 16
      : Math.max(0, message.xPx - 16 - MESSAGE_WIDTH_PX);
  return { left, top: message.yPx + 20 };
}

/**
 * The timeline: a canvas drawing only what is in view, plus an accessible DOM grid for keyboard
 * and screen readers (docs/decisions/001-timeline-rendering.md).
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
  const [keyMove, setKeyMove] = useState<KeyMove>();
  const [selection, setSelection] = useState<RowSelection>();
  const [announcement, setAnnouncement] = useState('');
  const [menu, setMenu] = useState<BarMenuSubject>();
  const [menuButtonFocused, setMenuButtonFocused] = useState(false);
  const menuWrapRef = useRef<HTMLDivElement>(null);
  const [transitions] = useState(createTransitionTracker);
  const readOnly = props.readOnly === true || props.changeRefusal !== undefined;
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
  const { onViewMoved } = props;
  const { scale, scaleRef, applyScale, panScale } = useTimeScale(
    props.firstView?.atMs ?? props.nowMs,
    timeWidth,
    onScaleChange,
    props.firstView?.spanMs,
    onViewMoved
      ? (next) => onViewMoved({ startMs: next.originMs, spanMs: next.msPerPx * timeWidth })
      : undefined,
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
  /** Top of a row in canvas pixels, at scroll `scrollTopPx` (the ref's in events, the state's in render). */
  const rowTopPx = (rowIndex: number, scrollTopPx: number) =>
    (rows[rowIndex]?.y ?? 0) + AXIS_HEIGHT_PX - scrollTopPx;
  const xOfMs = (ms: number) =>
    Math.min(size.width - 40, Math.max(LABEL_WIDTH_PX, LABEL_WIDTH_PX + timeToX(scale, ms)));
  const say = (text: string, refused: boolean) => {
    if (!text) return setMessage(undefined);
    const target = rowTarget(rows, focusedRow);
    const bar = target
      ? barsByDevice.get(target.device.deviceId)?.find((b) => b.id === focusedBarId)
      : undefined;
    const atMs = keyMove?.startMs ?? bar?.startMs ?? cursorMs;
    setMessage({
      text,
      refused,
      xPx: atMs === undefined ? LABEL_WIDTH_PX : xOfMs(atMs),
      yPx: rowTopPx(focusedRow, scrollTopRef.current) + 14,
    });
  };
  const openMenu = (target: RowTarget, bar: Bar, rowIndex: number) => {
    setKeyboardLast(true);
    setMenu({ ...target, bar, rowIndex });
  };

  const { drag, moving, hover, hoverGhost, cancelGesture, pointerSpot, leave, canvasHandlers } =
    usePointerGestures({
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
      setCursorMs,
      announce: setAnnouncement,
      extendRowSelection: (rowIndex) => {
        setSelection(rowsBetween(rows, selection?.anchorRow ?? focusedRow, rowIndex));
        setFocusedRow(rowIndex);
        setFocusedBarId(undefined);
      },
      onCreateWindow: props.onCreateWindow,
      onSelectBar: props.onSelectBar,
      onMoveBar: props.onMoveBar,
      onBarContextMenu: props.barMenuActions ? openMenu : undefined,
      onGhostContextMenu: props.ghostMenuActions
        ? (target, ghost, rowIndex) => {
            setKeyboardLast(true);
            setMenu({ ...target, ghost, rowIndex });
          }
        : undefined,
    });
  const { onKeyDown, newCommandForFocus } = useTimelineKeys({
    rows,
    barsByDevice,
    ghostsByDevice: props.ghostsByDevice,
    overlapIndex: props.overlapIndex,
    readOnly: props.readOnly,
    changeRefusal: props.changeRefusal,
    nowMs: props.nowMs,
    snapMs: props.snapMs,
    utc,
    timeWidthPx: timeWidth,
    rowsHeightPx: rowsHeight,
    focusedRow,
    focusedBarId,
    cursorMs,
    keyMove,
    selection,
    scaleRef,
    scrollerRef,
    applyScale,
    setFocusedRow,
    setFocusedBarId,
    setCursorMs,
    setKeyMove,
    setSelection,
    pointerSpot,
    cancelGesture,
    say,
    announce: setAnnouncement,
    onSelectBar: props.onSelectBar,
    onNewCommand: props.onNewCommand,
    onMoveBar: props.onMoveBar,
    onOpenMenu: props.barMenuActions
      ? (target, bar) => openMenu(target, bar, focusedRow)
      : undefined,
    onOpenGhostMenu: props.ghostMenuActions
      ? (target, ghost) => {
          setKeyboardLast(true);
          setMenu({ ...target, ghost, rowIndex: focusedRow });
        }
      : undefined,
    onCopyBar: props.onCopyBar,
    onPaste: props.onPaste,
  });
  const shownMoving = keyMove
    ? {
        barId: keyMove.bar.id,
        rowIndex: keyMove.rowIndex,
        startMs: keyMove.startMs,
        endMs: keyMove.endMs,
        refused: keyMove.refused,
      }
    : moving;

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
      moving: shownMoving,
      ...(selection && selection.deviceIds.size > 1
        ? { selectedDeviceIds: selection.deviceIds }
        : {}),
      cursorMs,
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

  const readout = readoutOf(drag ?? shownMoving);
  function readoutOf(
    preview:
      { rowIndex: number; startMs: number; endMs: number; xPx?: number; yPx?: number } | undefined,
  ) {
    const target = preview && rowTarget(rows, preview.rowIndex);
    if (!preview || !target || !(preview.endMs > preview.startMs)) return undefined;
    const text = windowReadout(preview.startMs, preview.endMs, utc ? 'UTC' : target.site.timeZone);
    const top = rowTopPx(preview.rowIndex, scrollTop);
    // Above the pointer (the refusal shows below it); at the bar, above its row, for keys.
    return preview.xPx !== undefined && preview.yPx !== undefined
      ? { text, left: preview.xPx + 14, top: Math.max(0, preview.yPx - 34) }
      : {
          text,
          left: xOfMs(preview.startMs),
          top: top - 28 < AXIS_HEIGHT_PX ? top + 36 : top - 28,
        };
  }

  // Only a queued change's window among the ghosts has a menu (a plan's rows have none).
  const menuGhost = (ghost: GhostWindow | undefined) =>
    ghost?.queued && props.ghostMenuActions ? ghost : undefined;
  const focusedMenuGhost = menuGhost(focusedGhost);
  const focusedSubject: BarMenuSubject | undefined =
    (gridFocused || menuButtonFocused) && focusedTarget
      ? focusedBar && props.barMenuActions
        ? { ...focusedTarget, bar: focusedBar, rowIndex: focusedRow }
        : focusedMenuGhost
          ? { ...focusedTarget, ghost: focusedMenuGhost, rowIndex: focusedRow }
          : undefined
      : undefined;
  const hoverMenuGhost = keyboardLast ? undefined : menuGhost(hoverGhost?.ghost);
  const hoverSubject: BarMenuSubject | undefined =
    hoverGhost && hoverMenuGhost
      ? {
          site: hoverGhost.site,
          device: hoverGhost.device,
          ghost: hoverMenuGhost,
          rowIndex: rows.findIndex(
            (row) => row.kind === 'device' && row.device.deviceId === hoverGhost.device.deviceId,
          ),
        }
      : hover && !keyboardLast && props.barMenuActions
        ? hover
        : undefined;
  const menuSubject = !drag && !shownMoving ? (menu ?? hoverSubject ?? focusedSubject) : undefined;
  const menuActions = menuSubject
    ? menuSubject.bar
      ? props.barMenuActions?.(menuSubject, menuSubject.bar)
      : props.ghostMenuActions?.(menuSubject, menuSubject.ghost)
    : undefined;
  const menuTopPx = menuSubject
    ? rowTopPx(menuSubject.rowIndex, scrollTop) +
      ((rows[menuSubject.rowIndex]?.height ?? BAR_MENU_BUTTON_PX) - BAR_MENU_BUTTON_PX) / 2
    : 0;
  const menuShown =
    menuSubject &&
    menuActions?.length &&
    menuTopPx >= AXIS_HEIGHT_PX &&
    menuTopPx + BAR_MENU_BUTTON_PX <= canvasHeight;

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
          readOnly={readOnly}
          readOnlyWhy={props.changeRefusal}
        />
        {props.notice}
        <details className="timeline-help">
          <summary>Mouse and keys</summary>
          <p id="timeline-help-text">
            {props.changeRefusal !== undefined
              ? `Drag the time axis to pan; Ctrl+wheel zooms around the pointer. ${props.changeRefusal}`
              : readOnly
                ? 'Drag the time axis to pan; Ctrl+wheel zooms around the pointer.'
                : 'Drag on an empty part of a row to schedule a window; drag a received bar to move it, or its ends to resize it (a window starting within 2 minutes, or running, stays where it is: the lock says so); drag the time axis to pan; Ctrl+wheel zooms around the pointer; right-click a window for its menu.'}{' '}
            Keys: arrows move between devices and commands, Enter opens, Shift+arrows pan, + and −
            zoom, Home goes to now.
            {readOnly
              ? ' On a window: Shift+F10 opens its menu, Ctrl+C copies it.'
              : ' On a window: Shift+F10 opens its menu, Ctrl+C copies it, Space picks it up to move it with Left and Right (with Shift: its end), Enter puts it there, Escape leaves it. Ctrl+V pastes the copied window under the pointer, or after the focused window; Shift+Up and Down choose several rows to paste on.'}
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
          aria-multiselectable={selection && selection.deviceIds.size > 1 ? true : undefined}
          aria-readonly={readOnly || undefined}
          aria-activedescendant={activeDescendant}
          aria-describedby="timeline-help-text"
          className="timeline-grid timeline-scroller"
          style={
            props.heightPx === undefined ? undefined : { height: props.heightPx, flex: 'none' }
          }
          onKeyDown={(event) => {
            setKeyboardLast(true);
            // What was said belongs to the last input; the key may say something new.
            setMessage(undefined);
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
            onPointerLeave={(event) => {
              // Onto the hovered bar's menu button: the bar stays the hovered one.
              if (
                event.relatedTarget instanceof Node &&
                menuWrapRef.current?.contains(event.relatedTarget)
              )
                return;
              canvasHandlers.onPointerLeave();
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
            nowMs={props.nowMs}
            selectedBarId={props.selectedBarId}
            selectedDeviceIds={
              selection && selection.deviceIds.size > 1 ? selection.deviceIds : undefined
            }
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
        {readout ? (
          <div
            className="timeline-readout"
            data-testid="timeline-readout"
            aria-hidden="true"
            style={{ left: readout.left, top: readout.top }}
          >
            {readout.text}
          </div>
        ) : null}
        <div role="status" className="visually-hidden">
          {announcement}
        </div>
        {card && !readout && !menu ? (
          <WindowCard
            card={card}
            timeZone={utc ? 'UTC' : card.site.timeZone}
            boundsWidthPx={size.width}
            boundsHeightPx={size.height}
          />
        ) : null}
        {menuShown && menuSubject && menuActions ? (
          <BarMenu
            key={menuWindow(menuSubject).id}
            subject={menuSubject}
            leftPx={Math.min(
              size.width - BAR_MENU_BUTTON_PX - 4,
              Math.max(
                LABEL_WIDTH_PX + 2,
                LABEL_WIDTH_PX + timeToX(scale, menuWindow(menuSubject).endMs) + 2,
              ),
            )}
            topPx={menuTopPx}
            actions={menuActions}
            note={props.changeRefusal}
            isOpen={menu !== undefined && menuWindow(menu).id === menuWindow(menuSubject).id}
            onOpenChange={(open) => setMenu(open ? menuSubject : undefined)}
            wrapRef={menuWrapRef}
            onPointerLeave={(event) => {
              if (event.relatedTarget !== canvasRef.current) leave();
            }}
            onFocusChange={setMenuButtonFocused}
          />
        ) : null}
      </div>
    </div>
  );
}
