import type { Bar } from './bars.ts';
import type { TimelineRow } from './rows.ts';
import { STATUS_COLOURS } from './status-colours.ts';
import {
  transitionLook,
  type StatusTransition,
  type TransitionLook,
} from './status-transitions.ts';
import { cachedAxisTicks, chooseTickStep } from './ticks.ts';
import { timeToX, type TimeScale } from './time-scale.ts';

/** Geometry of the canvas in CSS pixels: a label column on the left, the axis on top. */
export const LABEL_WIDTH_PX = 200;
export const AXIS_HEIGHT_PX = 36;

/** A window being dragged out on a row, with the verdict of the drag rule. */
export interface DragPreview {
  rowIndex: number;
  startMs: number;
  endMs: number;
  refused: boolean;
}

/** A received bar being moved or resized by a replace drag, with the drag rule's verdict. */
export interface MovingPreview {
  barId: string;
  startMs: number;
  endMs: number;
  refused: boolean;
}

/** Everything one frame needs. */
export interface FrameState {
  widthPx: number;
  heightPx: number;
  scale: TimeScale;
  rows: readonly TimelineRow[];
  scrollTopPx: number;
  firstRow: number;
  lastRow: number;
  barsByDevice: ReadonlyMap<string, readonly Bar[]>;
  nowMs: number;
  utc: boolean;
  focusedRow: number;
  focusedBarId: string | undefined;
  selectedBarId: string | undefined;
  drag: DragPreview | undefined;
  /** Bar being moved by a replace drag: drawn as a ghost at its new place. */
  moving: MovingPreview | undefined;
  /** Bars changing status, by bar ID, drawn crossfading (empty or absent: none). */
  transitions?: ReadonlyMap<string, StatusTransition>;
  /** Clock the transitions run on (requestAnimationFrame time), in ms. */
  timeMs?: number;
}

const FONT = '12px system-ui, sans-serif';
const CHAR_WIDTH_PX = 6.6;

function fitText(text: string, widthPx: number): string {
  const fits = Math.floor((widthPx - 8) / CHAR_WIDTH_PX);
  if (fits <= 1) return '';
  return text.length <= fits ? text : `${text.slice(0, fits - 1)}…`;
}

function drawLock(ctx: CanvasRenderingContext2D, x: number, y: number): void {
  ctx.strokeStyle = '#ffffff';
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.arc(x + 4, y + 3, 2.5, Math.PI, 0);
  ctx.stroke();
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(x, y + 3, 8, 6);
}

/**
 * Draws one frame: only the rows in `[firstRow, lastRow]` and the bars intersecting the visible
 * time range, in CSS pixels (the caller has applied the devicePixelRatio transform). Cost is
 * proportional to what is visible, not to the fleet (docs/decisions/001-timeline-rendering.md).
 */
export function drawFrame(ctx: CanvasRenderingContext2D, frame: FrameState): void {
  const { widthPx, heightPx, scale, rows, scrollTopPx, nowMs } = frame;
  const timeLeft = LABEL_WIDTH_PX;
  const timeWidth = widthPx - LABEL_WIDTH_PX;
  const viewStartMs = scale.originMs;
  const viewEndMs = scale.originMs + timeWidth * scale.msPerPx;
  const xOf = (ms: number) => timeLeft + timeToX(scale, ms);
  const step = chooseTickStep(scale.msPerPx);
  // Most frames have no transition: skip the per-bar lookup then.
  const transitions = frame.transitions?.size ? frame.transitions : undefined;

  ctx.clearRect(0, 0, widthPx, heightPx);
  ctx.font = FONT;
  ctx.textBaseline = 'middle';

  // Rows, clipped below the axis.
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, AXIS_HEIGHT_PX, widthPx, heightPx - AXIS_HEIGHT_PX);
  ctx.clip();
  for (let i = frame.firstRow; i <= frame.lastRow; i++) {
    const row = rows[i];
    if (!row) continue;
    const top = AXIS_HEIGHT_PX + row.y - scrollTopPx;
    const zone = frame.utc ? 'UTC' : row.site.timeZone;
    if (row.kind === 'site') {
      ctx.fillStyle = '#e5e7eb';
      ctx.fillRect(0, top, widthPx, row.height);
      ctx.fillStyle = '#111827';
      ctx.fillText(fitText(`${row.site.name} · ${zone}`, LABEL_WIDTH_PX), 6, top + row.height / 2);
      ctx.fillStyle = '#374151';
      for (const tick of cachedAxisTicks(viewStartMs, viewEndMs, step, zone)) {
        const x = xOf(tick.ms);
        if (x < timeLeft || x > widthPx) continue;
        ctx.fillRect(x, top + row.height - 6, 1, 6);
        ctx.fillText(tick.label, x + 3, top + row.height / 2);
      }
      continue;
    }
    ctx.fillStyle = i === frame.focusedRow ? '#eff6ff' : i % 2 ? '#ffffff' : '#f9fafb';
    ctx.fillRect(0, top, widthPx, row.height);
    // Past shading.
    const nowX = Math.min(widthPx, Math.max(timeLeft, xOf(nowMs)));
    if (nowX > timeLeft) {
      ctx.fillStyle = 'rgba(107, 114, 128, 0.10)';
      ctx.fillRect(timeLeft, top, nowX - timeLeft, row.height);
    }
    // Grid lines in the site's own zone.
    ctx.fillStyle = 'rgba(0, 0, 0, 0.07)';
    for (const tick of cachedAxisTicks(viewStartMs, viewEndMs, step, zone)) {
      const x = xOf(tick.ms);
      if (x >= timeLeft && x <= widthPx) ctx.fillRect(x, top, tick.dayStart ? 2 : 1, row.height);
    }
    ctx.fillStyle = '#111827';
    ctx.fillText(fitText(row.device.name, LABEL_WIDTH_PX - 8), 14, top + row.height / 2);
    ctx.fillStyle = '#e5e7eb';
    ctx.fillRect(0, top + row.height - 1, widthPx, 1);

    ctx.save();
    ctx.beginPath();
    ctx.rect(timeLeft, top, timeWidth, row.height);
    ctx.clip();
    for (const bar of frame.barsByDevice.get(row.device.deviceId) ?? []) {
      if (bar.startMs >= viewEndMs) break;
      if (bar.endMs <= viewStartMs) continue;
      const moving = frame.moving?.barId === bar.id;
      const transition = transitions?.get(bar.id);
      drawBar(ctx, bar, xOf(bar.startMs), xOf(bar.endMs), top + 4, row.height - 8, nowMs, {
        faded: moving,
        focused: bar.id === frame.focusedBarId,
        selected: bar.id === frame.selectedBarId,
        transition: transition && transitionLook(transition, frame.timeMs ?? 0),
      });
      if (moving && frame.moving)
        drawGhost(
          ctx,
          xOf(frame.moving.startMs),
          xOf(frame.moving.endMs),
          top + 4,
          row.height - 8,
          frame.moving.refused,
        );
    }
    if (frame.drag?.rowIndex === i)
      drawGhost(
        ctx,
        xOf(frame.drag.startMs),
        xOf(frame.drag.endMs),
        top + 4,
        row.height - 8,
        frame.drag.refused,
      );
    ctx.restore();
  }
  ctx.restore();

  // Axis in the zone of the top visible row's site (or UTC).
  const topRow = rows[frame.firstRow];
  const axisZone = frame.utc || !topRow ? 'UTC' : topRow.site.timeZone;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, widthPx, AXIS_HEIGHT_PX);
  ctx.fillStyle = '#111827';
  ctx.fillText(fitText(`Time: ${axisZone}`, LABEL_WIDTH_PX), 6, AXIS_HEIGHT_PX / 2);
  for (const tick of cachedAxisTicks(viewStartMs, viewEndMs, step, axisZone)) {
    const x = xOf(tick.ms);
    if (x < timeLeft || x > widthPx) continue;
    ctx.fillStyle = '#6b7280';
    ctx.fillRect(
      x,
      tick.dayStart ? 0 : AXIS_HEIGHT_PX - 10,
      1,
      tick.dayStart ? AXIS_HEIGHT_PX : 10,
    );
    ctx.fillStyle = '#111827';
    ctx.fillText(tick.label, x + 3, AXIS_HEIGHT_PX / 2 - 4);
  }
  ctx.fillStyle = '#9ca3af';
  ctx.fillRect(0, AXIS_HEIGHT_PX - 1, widthPx, 1);

  // Now line over everything.
  const nowX = xOf(nowMs);
  if (nowX >= timeLeft && nowX <= widthPx) {
    ctx.fillStyle = '#dc2626';
    ctx.fillRect(nowX - 1, 0, 2, heightPx);
  }
}

function drawBar(
  ctx: CanvasRenderingContext2D,
  bar: Bar,
  x0: number,
  x1: number,
  y: number,
  h: number,
  nowMs: number,
  look: {
    faded: boolean;
    focused: boolean;
    selected: boolean;
    transition: TransitionLook | undefined;
  },
): void {
  const colours = look.transition ?? STATUS_COLOURS[bar.status];
  const w = Math.max(2, x1 - x0);
  ctx.globalAlpha = look.faded ? 0.35 : 1;
  ctx.fillStyle = colours.fill;
  ctx.fillRect(x0, y, w, h);
  if (bar.status === 'executing') {
    const progress = Math.min(1, Math.max(0, (nowMs - bar.startMs) / (bar.endMs - bar.startMs)));
    ctx.fillStyle = 'rgba(0, 0, 0, 0.28)';
    ctx.fillRect(x0, y + h - 4, w * progress, 4);
    if (w > 16) drawLock(ctx, x0 + 4, y + 4);
  }
  if (bar.status === 'cancelled') {
    ctx.strokeStyle = 'rgba(31, 41, 55, 0.25)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let hx = x0 - h; hx < x0 + w; hx += 8) {
      ctx.moveTo(Math.max(x0, hx), y + Math.max(0, x0 - hx));
      ctx.lineTo(Math.min(x0 + w, hx + h), y + Math.min(h, x0 + w - hx));
    }
    ctx.stroke();
  }
  const textLeft = bar.status === 'executing' && w > 16 ? x0 + 16 : x0 + 4;
  const text = fitText(bar.label, x0 + w - textLeft + 4);
  if (text) {
    ctx.fillStyle = colours.text;
    ctx.fillText(text, Math.max(textLeft, LABEL_WIDTH_PX + 4), y + h / 2);
  }
  ctx.globalAlpha = 1;
  if (look.transition && look.transition.pulse > 0) {
    // A ring that widens and fades as the new colour settles: the change is seen, not scrolled to.
    const spread = 3 * (1 - look.transition.pulse);
    ctx.globalAlpha = look.transition.pulse;
    ctx.strokeStyle = colours.fill;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 - spread, y - spread, w + 2 * spread, h + 2 * spread);
    ctx.globalAlpha = 1;
  }
  if (look.focused || look.selected) {
    ctx.strokeStyle = look.focused ? '#f59e0b' : '#111827';
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 + 1, y + 1, w - 2, h - 2);
  }
}

function drawGhost(
  ctx: CanvasRenderingContext2D,
  x0: number,
  x1: number,
  y: number,
  h: number,
  refused: boolean,
): void {
  const w = Math.max(2, x1 - x0);
  ctx.fillStyle = refused ? 'rgba(220, 38, 38, 0.25)' : 'rgba(29, 78, 216, 0.25)';
  ctx.fillRect(x0, y, w, h);
  ctx.setLineDash([4, 3]);
  ctx.strokeStyle = refused ? '#dc2626' : '#1d4ed8';
  ctx.lineWidth = 2;
  ctx.strokeRect(x0 + 1, y + 1, w - 2, h - 2);
  ctx.setLineDash([]);
  if (refused && w > 20) {
    ctx.fillStyle = '#991b1b';
    ctx.fillText('✕ refused', x0 + 4, y + h / 2);
  }
}
