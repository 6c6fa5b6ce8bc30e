import {
  isActiveStatus,
  type CancellationReason,
  type CommandStatus,
} from '../../../../domain/command.ts';
import type { DesignTokens } from '../../../lib/design-tokens.ts';
import { deviceRowLabel } from '../../../lib/device-state-words.ts';
import { shortClockLabel } from '../../../lib/site-clock-words.ts';
import {
  chooseAxisTiers,
  layoutLowerTier,
  layoutUpperTier,
  type AxisLabel,
} from './axis-layout.ts';
import { barLabels, type Bar } from './bars.ts';
import { EDIT_LEAD_TIME_MS } from './edit-lock.ts';
import { ghostLabel, type GhostWindow } from './ghosts.ts';
import type { TimelineRow } from './rows.ts';
import {
  transitionLook,
  type StatusTransition,
  type TransitionLook,
} from './status-transitions.ts';
import { cachedAxisTicks } from './ticks.ts';
import { timeToX, type TimeScale } from './time-scale.ts';

/**
 * Geometry of the canvas in CSS pixels: a label column on the left, the two-tier time header on
 * top (periods in the upper tier, their divisions in the lower one).
 */
export const LABEL_WIDTH_PX = 200;
export const UPPER_TIER_HEIGHT_PX = 22;
export const AXIS_HEIGHT_PX = 44;

/**
 * A window being dragged out on a row, with the verdict of the drag rule; `xPx`, `yPx`: the
 * pointer in canvas CSS pixels (where its readout shows).
 */
export interface DragPreview {
  rowIndex: number;
  startMs: number;
  endMs: number;
  refused: boolean;
  xPx?: number;
  yPx?: number;
}

/**
 * A received bar being moved or resized by a replace drag (`xPx`, `yPx`: the pointer) or by
 * keys (no pointer: its readout shows at the bar), with the drag rule's verdict.
 */
export interface MovingPreview {
  barId: string;
  rowIndex: number;
  startMs: number;
  endMs: number;
  refused: boolean;
  xPx?: number;
  yPx?: number;
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
  /** Bar being moved by a replace drag or by keys: drawn as a ghost at its new place. */
  moving: MovingPreview | undefined;
  /**
   * Device rows chosen together (Shift+Up/Down) for a paste onto several rows, by device ID;
   * drawn with a band in the label column. Absent or empty: none.
   */
  selectedDeviceIds?: ReadonlySet<string>;
  /** The keyboard's time on the focused row when no window has focus (epoch ms): a thin line. */
  cursorMs?: number | undefined;
  /** Bars changing status, by bar ID, drawn crossfading (empty or absent: none). */
  transitions?: ReadonlyMap<string, StatusTransition>;
  /** Clock the transitions run on (requestAnimationFrame time), in ms. */
  timeMs?: number;
  /** Colours and font of the theme in use (styles/tokens.css through lib/design-tokens.ts). */
  tokens: DesignTokens;
  /**
   * Windows not sent yet (a dispatch plan's rows) by device ID, each list sorted by start: a row
   * holding any draws its command bars in its upper half and these as ghost bars in its lower
   * half, so an overlap shows as one above the other.
   */
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]>;
}

const FONT_SIZE_PX = 12;

/** Marks that tell statuses apart without colour, each with the status in words beside it. */
const STATUS_ICON: Record<CommandStatus, string> = {
  received: '○',
  executing: '▶',
  completed: '✓',
  cancelled: '✕',
};

/** Spacing of the hatching of a cancelled bar, by reason: a pattern per reason, not a colour. */
const REASON_HATCH_PX: Record<CancellationReason, number> = {
  manuallyCancel: 8,
  timeWindowOverlap: 4,
  startTimeExpire: 12,
  deviceFault: 6,
  notSupported: 16,
};

/** Text widths by font, then text: labels repeat frame after frame, measuring them need not. */
const textWidths = new Map<string, Map<string, number>>();

/** Measures text in the context's current font (set it before asking), remembered per font. */
function measurer(ctx: CanvasRenderingContext2D): (text: string) => number {
  const font = ctx.font;
  let widths = textWidths.get(font);
  if (!widths || widths.size > 4096) textWidths.set(font, (widths = new Map()));
  const known = widths;
  return (text) => {
    let width = known.get(text);
    if (width === undefined) {
      width = ctx.measureText(text).width;
      known.set(text, width);
    }
    return width;
  };
}

function fitText(text: string, widthPx: number, measure: (text: string) => number): string {
  if (measure(text) <= widthPx) return text;
  let fits = text.length - 1;
  while (fits > 1 && measure(`${text.slice(0, fits)}…`) > widthPx) fits--;
  return fits > 1 ? `${text.slice(0, fits)}…` : '';
}

function drawLock(ctx: CanvasRenderingContext2D, x: number, y: number, colour: string): void {
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.arc(x + 4, y + 3, 2.5, Math.PI, 0);
  ctx.stroke();
  ctx.fillStyle = colour;
  ctx.fillRect(x, y + 3, 8, 6);
}

/**
 * Draws one frame: only the rows in `[firstRow, lastRow]` and the bars intersecting the visible
 * time range, in CSS pixels (the caller has applied the devicePixelRatio transform). Cost is
 * proportional to what is visible, not to the fleet (docs/decisions/001-timeline-rendering.md).
 * Returns the labels of the time header as drawn (x from the time area's left edge), so the page
 * can expose them to tests without reading pixels.
 */
export function drawFrame(ctx: CanvasRenderingContext2D, frame: FrameState): AxisLabel[] {
  const { widthPx, heightPx, scale, rows, scrollTopPx, nowMs, tokens } = frame;
  const timeLeft = LABEL_WIDTH_PX;
  const timeWidth = widthPx - LABEL_WIDTH_PX;
  const viewStartMs = scale.originMs;
  const viewEndMs = scale.originMs + timeWidth * scale.msPerPx;
  const xOf = (ms: number) => timeLeft + timeToX(scale, ms);
  const tiers = chooseAxisTiers(scale.msPerPx);
  // Most frames have no transition: skip the per-bar lookup then.
  const transitions = frame.transitions?.size ? frame.transitions : undefined;
  const font = `${FONT_SIZE_PX}px ${tokens.fontFamily}`;
  const boldFont = `600 ${FONT_SIZE_PX}px ${tokens.fontFamily}`;

  ctx.clearRect(0, 0, widthPx, heightPx);
  ctx.fillStyle = tokens.surface;
  ctx.fillRect(0, 0, widthPx, heightPx);
  ctx.font = font;
  ctx.textBaseline = 'middle';
  const measure = measurer(ctx);
  ctx.font = boldFont;
  const measureBold = measurer(ctx);
  ctx.font = font;

  // Rows, clipped below the axis.
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, AXIS_HEIGHT_PX, widthPx, heightPx - AXIS_HEIGHT_PX);
  ctx.clip();
  const axisZoneOf = (row: TimelineRow | undefined) =>
    frame.utc || !row ? 'UTC' : row.site.timeZone;
  const axisZone = axisZoneOf(rows[frame.firstRow]);
  let rowsBottom = AXIS_HEIGHT_PX;
  for (let i = frame.firstRow; i <= frame.lastRow; i++) {
    const row = rows[i];
    if (!row) continue;
    const top = AXIS_HEIGHT_PX + row.y - scrollTopPx;
    rowsBottom = top + row.height;
    const zone = frame.utc ? 'UTC' : row.site.timeZone;
    const ticks = cachedAxisTicks(viewStartMs, viewEndMs, tiers.lower.step, zone);
    if (row.kind === 'site') {
      // The site's name and zone across the whole row, never cut by the label column; where its
      // zone is not the header's, the row carries its own hours after the name.
      ctx.fillStyle = tokens.surface2;
      ctx.fillRect(0, top, widthPx, row.height);
      ctx.font = boldFont;
      ctx.fillStyle = tokens.text;
      const clock = frame.utc ? zone : shortClockLabel(row.site);
      const name = fitText(`${row.site.name} · ${clock}`, widthPx - 12, measureBold);
      ctx.fillText(name, 6, top + row.height / 2);
      const nameEndPx = 6 + measureBold(name);
      ctx.font = font;
      if (zone !== axisZone) {
        ctx.fillStyle = tokens.muted;
        for (const label of layoutLowerTier(
          scale,
          timeWidth,
          zone,
          tiers.lower,
          measure,
          nameEndPx - timeLeft + 16,
        ))
          ctx.fillText(label.text, timeLeft + label.xPx, top + row.height / 2);
      }
      continue;
    }
    ctx.fillStyle = i % 2 ? tokens.surface : tokens.bg;
    ctx.fillRect(0, top, widthPx, row.height);
    const rowSelected = frame.selectedDeviceIds?.has(row.device.deviceId) ?? false;
    if (i === frame.focusedRow || rowSelected) {
      ctx.globalAlpha = i === frame.focusedRow ? 0.12 : 0.07;
      ctx.fillStyle = tokens.accent;
      ctx.fillRect(0, top, widthPx, row.height);
      ctx.globalAlpha = 1;
    }
    if (rowSelected) {
      ctx.fillStyle = tokens.accent;
      ctx.fillRect(0, top, 4, row.height);
    }
    // Past shading.
    const nowX = Math.min(widthPx, Math.max(timeLeft, xOf(nowMs)));
    if (nowX > timeLeft) {
      ctx.globalAlpha = 0.1;
      ctx.fillStyle = tokens.muted;
      ctx.fillRect(timeLeft, top, nowX - timeLeft, row.height);
      ctx.globalAlpha = 1;
    }
    // Grid lines in the site's own zone; a day starts with a stronger line.
    ctx.fillStyle = tokens.border;
    for (const tick of ticks) {
      const x = xOf(tick.ms);
      if (x >= timeLeft && x <= widthPx) ctx.fillRect(x, top, tick.dayStart ? 2 : 1, row.height);
    }
    ctx.fillStyle = tokens.text;
    ctx.fillText(
      fitText(deviceRowLabel(row.device), LABEL_WIDTH_PX - 22, measure),
      14,
      top + row.height / 2,
    );
    ctx.fillStyle = tokens.border;
    ctx.fillRect(0, top + row.height - 1, widthPx, 1);

    ctx.save();
    ctx.beginPath();
    ctx.rect(timeLeft, top, timeWidth, row.height);
    ctx.clip();
    const bars = frame.barsByDevice.get(row.device.deviceId) ?? [];
    const ghosts = frame.ghostsByDevice?.get(row.device.deviceId);
    // Rows with ghosts share their height: commands above, the plan's windows below.
    const barH = ghosts?.length ? (row.height - 10) / 2 : row.height - 8;
    // Ended windows (completed, cancelled) first and subdued, the live ones over them, and the
    // ended ones' labels last, never where a live bar or its label is: a cancelled window left by
    // a move or an undo never covers a live bar or its label, nor peeks out from under it.
    const liveSpans: number[] = [];
    for (let pass = 0; pass < 2; pass++) {
      const live = pass === 1;
      for (let b = 0; b < bars.length; b++) {
        const bar = bars[b];
        if (!bar) continue;
        if (bar.startMs >= viewEndMs) break;
        if (bar.endMs <= viewStartMs || isActiveStatus(bar.status) !== live) continue;
        const moving = frame.moving?.barId === bar.id;
        const transition = transitions?.get(bar.id);
        const x0 = xOf(bar.startMs);
        const right = drawBar(ctx, bar, x0, xOf(bar.endMs), top + 4, barH, {
          nowMs,
          tokens,
          measure,
          // Room for a label beside a narrow bar: up to the next bar (a live one's: the next live
          // bar, written over ended ones on a backdrop) or the view's right edge.
          besideEndPx: Math.min(widthPx, xOf(nextStartMs(bars, b, live, viewEndMs))),
          withLabel: live,
          faded: moving,
          focused: bar.id === frame.focusedBarId,
          selected: bar.id === frame.selectedBarId,
          transition: transition && transitionLook(transition, frame.timeMs ?? 0, tokens.status),
        });
        if (live) liveSpans.push(x0, right);
        if (moving && frame.moving)
          drawGhost(
            ctx,
            xOf(frame.moving.startMs),
            xOf(frame.moving.endMs),
            top + 4,
            barH,
            frame.moving.refused,
            tokens,
          );
      }
    }
    drawEndedLabels(ctx, bars, liveSpans, {
      top,
      barH,
      widthPx,
      viewStartMs,
      viewEndMs,
      xOf,
      frame,
      transitions,
      measure,
    });
    if (
      i === frame.focusedRow &&
      frame.cursorMs !== undefined &&
      frame.focusedBarId === undefined
    ) {
      const x = xOf(frame.cursorMs);
      ctx.fillStyle = tokens.focus;
      ctx.fillRect(x - 1, top + 3, 2, row.height - 6);
      ctx.fillRect(x - 4, top + 3, 8, 2);
      ctx.fillRect(x - 4, top + row.height - 5, 8, 2);
    }
    if (ghosts)
      for (const ghost of ghosts) {
        if (ghost.startMs >= viewEndMs) break;
        if (ghost.endMs <= viewStartMs) continue;
        drawGhostWindow(
          ctx,
          ghost,
          xOf(ghost.startMs),
          xOf(ghost.endMs),
          top + 6 + barH,
          barH,
          tokens,
          measure,
          ghost.id === frame.focusedBarId,
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
        tokens,
      );
    ctx.restore();
  }
  // Below the last row the grid goes on empty to the bottom edge: day lines keep the time legible.
  if (rowsBottom < heightPx) {
    ctx.fillStyle = tokens.border;
    for (const tick of cachedAxisTicks(viewStartMs, viewEndMs, tiers.lower.step, axisZone)) {
      const x = xOf(tick.ms);
      if (tick.dayStart && x >= timeLeft && x <= widthPx)
        ctx.fillRect(x, rowsBottom, 2, heightPx - rowsBottom);
    }
    ctx.fillRect(LABEL_WIDTH_PX - 1, rowsBottom, 1, heightPx - rowsBottom);
  }
  ctx.restore();

  const labels = drawAxis(ctx, frame, axisZone, measure, measureBold, font, boldFont);

  // Now line over everything.
  const nowX = xOf(nowMs);
  if (nowX >= timeLeft && nowX <= widthPx) {
    ctx.fillStyle = tokens.danger;
    ctx.fillRect(nowX - 1, 0, 2, heightPx);
  }
  return labels;
}

/** The two-tier time header in `zone`: periods above, their divisions below. */
function drawAxis(
  ctx: CanvasRenderingContext2D,
  frame: FrameState,
  zone: string,
  measure: (text: string) => number,
  measureBold: (text: string) => number,
  font: string,
  boldFont: string,
): AxisLabel[] {
  const { widthPx, scale, tokens } = frame;
  const timeLeft = LABEL_WIDTH_PX;
  const timeWidth = widthPx - LABEL_WIDTH_PX;
  const viewEndMs = scale.originMs + timeWidth * scale.msPerPx;
  const tiers = chooseAxisTiers(scale.msPerPx);
  ctx.fillStyle = tokens.surface;
  ctx.fillRect(0, 0, widthPx, AXIS_HEIGHT_PX);
  ctx.fillStyle = tokens.surface2;
  ctx.fillRect(timeLeft, 0, timeWidth, UPPER_TIER_HEIGHT_PX);

  // The corner names the clock the header is on.
  ctx.font = font;
  ctx.fillStyle = tokens.muted;
  ctx.fillText('Times in', 6, UPPER_TIER_HEIGHT_PX / 2);
  ctx.font = boldFont;
  ctx.fillStyle = tokens.text;
  ctx.fillText(
    fitText(zone, LABEL_WIDTH_PX - 12, measureBold),
    6,
    UPPER_TIER_HEIGHT_PX + (AXIS_HEIGHT_PX - UPPER_TIER_HEIGHT_PX) / 2,
  );

  // Tick lines: a period boundary across both tiers, a division at the foot of the lower one.
  ctx.fillStyle = tokens.controlBorder;
  for (const tick of cachedAxisTicks(scale.originMs, viewEndMs, tiers.upper.step, zone)) {
    const x = timeLeft + timeToX(scale, tick.ms);
    if (x >= timeLeft && x <= widthPx) ctx.fillRect(x, 0, 1, AXIS_HEIGHT_PX);
  }
  for (const tick of cachedAxisTicks(scale.originMs, viewEndMs, tiers.lower.step, zone)) {
    const x = timeLeft + timeToX(scale, tick.ms);
    if (x >= timeLeft && x <= widthPx) ctx.fillRect(x, AXIS_HEIGHT_PX - 8, 1, 8);
  }

  // Each tier measured in the font it is written in.
  ctx.font = font;
  const lower = layoutLowerTier(scale, timeWidth, zone, tiers.lower, measure);
  ctx.font = boldFont;
  const upper = layoutUpperTier(scale, timeWidth, zone, tiers.upper, measureBold);
  ctx.fillStyle = tokens.text;
  for (const label of upper)
    ctx.fillText(label.text, timeLeft + label.xPx, UPPER_TIER_HEIGHT_PX / 2);
  ctx.font = font;
  for (const label of lower)
    ctx.fillText(
      label.text,
      timeLeft + label.xPx,
      UPPER_TIER_HEIGHT_PX + (AXIS_HEIGHT_PX - UPPER_TIER_HEIGHT_PX) / 2 - 2,
    );
  ctx.fillStyle = tokens.controlBorder;
  ctx.fillRect(0, UPPER_TIER_HEIGHT_PX, widthPx, 1);
  ctx.fillRect(0, AXIS_HEIGHT_PX - 1, widthPx, 1);
  ctx.fillRect(LABEL_WIDTH_PX - 1, 0, 1, AXIS_HEIGHT_PX);
  return [...upper, ...lower];
}

/**
 * Where the room beside bar `b` ends: the start of the next bar, or for a live bar (`live`) of
 * the next live one, else `viewEndMs`. Bars are sorted by start.
 */
function nextStartMs(bars: readonly Bar[], b: number, live: boolean, viewEndMs: number): number {
  for (let n = b + 1; n < bars.length; n++) {
    const next = bars[n];
    if (!next || next.startMs >= viewEndMs) break;
    if (!live || isActiveStatus(next.status)) return next.startMs;
  }
  return viewEndMs;
}

/** Opacity of an ended window: behind the live ones, still readable, a cancelled one fainter. */
const ENDED_ALPHA: Partial<Record<CommandStatus, number>> = { completed: 0.7, cancelled: 0.45 };

/**
 * True for a received window starting within the lead time (lib/edit-lock.ts): it can no longer
 * be moved, so it carries the lock an executing one does.
 */
function lockedSoon(bar: Bar, nowMs: number): boolean {
  return bar.status === 'received' && bar.startMs < nowMs + EDIT_LEAD_TIME_MS;
}

function drawBar(
  ctx: CanvasRenderingContext2D,
  bar: Bar,
  x0: number,
  x1: number,
  y: number,
  h: number,
  look: {
    nowMs: number;
    tokens: DesignTokens;
    measure: (text: string) => number;
    besideEndPx: number;
    /** False: the label is drawn later (an ended window's, where no live one is). */
    withLabel: boolean;
    faded: boolean;
    focused: boolean;
    selected: boolean;
    transition: TransitionLook | undefined;
  },
): number {
  const { tokens } = look;
  const colours = look.transition ?? tokens.status[bar.status];
  const w = Math.max(2, x1 - x0);
  const alpha = look.faded ? 0.35 : (ENDED_ALPHA[bar.status] ?? 1);
  ctx.globalAlpha = alpha;
  ctx.fillStyle = colours.fill;
  ctx.fillRect(x0, y, w, h);
  if (bar.status === 'executing') {
    const progress = Math.min(
      1,
      Math.max(0, (look.nowMs - bar.startMs) / (bar.endMs - bar.startMs)),
    );
    ctx.globalAlpha = look.faded ? 0.2 : 0.45;
    ctx.fillStyle = colours.text;
    ctx.fillRect(x0, y + h - 4, w * progress, 4);
    ctx.globalAlpha = alpha;
  }
  if (bar.status === 'cancelled') {
    // Hatching whose spacing says the reason, and a stripe in the reason's colour.
    const reason = bar.record.cancelReason;
    const spacing = reason ? REASON_HATCH_PX[reason] : 8;
    hatch(ctx, { x0, y, w, h }, colours.text, 0.35 * alpha, spacing, false);
    if (reason) {
      ctx.fillStyle = tokens.reason[reason];
      ctx.fillRect(x0, y, Math.min(4, w), h);
    }
  }
  const right = look.withLabel
    ? drawBarLabel(ctx, bar, x0, w, y, h, colours.text, alpha, look)
    : x0 + w;
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
    ctx.strokeStyle = look.focused ? tokens.focus : tokens.text;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 + 1, y + 1, w - 2, h - 2);
  }
  return right;
}

/**
 * The labels of a row's ended windows, drawn after its live ones and only where no live bar or
 * label is (`liveSpans`: pairs of left and right x): an ended window writes the longest of its
 * labels that keeps clear of them, else its mark, else nothing, so no part of an ended label is
 * ever over, or peeking out from under, a live one.
 */
function drawEndedLabels(
  ctx: CanvasRenderingContext2D,
  bars: readonly Bar[],
  liveSpans: readonly number[],
  at: {
    top: number;
    barH: number;
    widthPx: number;
    viewStartMs: number;
    viewEndMs: number;
    xOf: (ms: number) => number;
    frame: FrameState;
    transitions: ReadonlyMap<string, StatusTransition> | undefined;
    measure: (text: string) => number;
  },
): void {
  const { top, xOf, frame, viewEndMs } = at;
  const { tokens } = frame;
  const blocked = (fromPx: number, toPx: number) => {
    for (let s = 0; s < liveSpans.length; s += 2)
      if (fromPx < (liveSpans[s + 1] ?? 0) + 2 && toPx > (liveSpans[s] ?? 0) - 2) return true;
    return false;
  };
  for (let b = 0; b < bars.length; b++) {
    const bar = bars[b];
    if (!bar) continue;
    if (bar.startMs >= viewEndMs) break;
    if (bar.endMs <= at.viewStartMs || isActiveStatus(bar.status)) continue;
    const x0 = xOf(bar.startMs);
    const transition = at.transitions?.get(bar.id);
    const colours =
      (transition && transitionLook(transition, frame.timeMs ?? 0, tokens.status)) ??
      tokens.status[bar.status];
    const alpha = frame.moving?.barId === bar.id ? 0.35 : (ENDED_ALPHA[bar.status] ?? 1);
    ctx.globalAlpha = alpha;
    drawBarLabel(
      ctx,
      bar,
      x0,
      Math.max(2, xOf(bar.endMs) - x0),
      top + 4,
      at.barH,
      colours.text,
      alpha,
      {
        nowMs: frame.nowMs,
        tokens,
        measure: at.measure,
        besideEndPx: Math.min(at.widthPx, xOf(nextStartMs(bars, b, false, viewEndMs))),
        blocked,
      },
    );
    ctx.globalAlpha = 1;
  }
}

/**
 * The bar's status mark and the longest of its labels that fits: inside the bar, else beside it
 * (up to the next bar), else only the mark inside when it fits; never a cut text (the tooltip
 * and the accessible name hold the whole).
 */
function drawBarLabel(
  ctx: CanvasRenderingContext2D,
  bar: Bar,
  x0: number,
  w: number,
  y: number,
  h: number,
  textColour: string,
  alpha: number,
  look: {
    nowMs: number;
    tokens: DesignTokens;
    measure: (text: string) => number;
    besideEndPx: number;
    /** True when text from one x to another would cross something it must keep clear of. */
    blocked?: (fromPx: number, toPx: number) => boolean;
  },
): number {
  const { measure } = look;
  const clear = (fromPx: number, text: string) => !look.blocked?.(fromPx, fromPx + measure(text));
  const icon = STATUS_ICON[bar.status];
  // A window that can no longer be moved (running, or starting within the lead time) says so
  // with a lock where its mark would be.
  const locked = (bar.status === 'executing' || lockedSoon(bar, look.nowMs)) && w > 16;
  // What is left of a bar that began before the view: its label starts at the view's edge.
  const left = Math.max(x0, LABEL_WIDTH_PX);
  const inner = x0 + w - left - (locked ? 20 : 8);
  const textLeft = left + (locked ? 16 : 4);
  const middle = y + h / 2;
  ctx.fillStyle = textColour;
  if (locked) drawLock(ctx, left + 4, y + 4, textColour);
  const labels = barLabels(bar);
  for (const text of labels) {
    const full = locked ? text : `${icon} ${text}`;
    if (measure(full) <= inner && clear(textLeft, full)) {
      ctx.fillText(full, textLeft, middle);
      return x0 + w;
    }
  }
  const beside = look.besideEndPx - (x0 + w) - 10;
  for (const text of labels) {
    const full = `${icon} ${text}`;
    if (measure(full) <= beside && clear(x0 + w + 5, full)) {
      ctx.save();
      if (alpha === 1) {
        // On a backdrop: the text may run over ended windows drawn behind.
        ctx.fillStyle = look.tokens.surface;
        ctx.globalAlpha = 0.85;
        ctx.fillRect(x0 + w + 2, y + 2, measure(full) + 6, h - 4);
      }
      ctx.globalAlpha = alpha;
      ctx.fillStyle = look.tokens.text;
      ctx.fillText(full, x0 + w + 5, middle);
      ctx.restore();
      return x0 + w + 8 + measure(full);
    }
  }
  if (!locked && measure(icon) <= inner && clear(textLeft, icon))
    ctx.fillText(icon, textLeft, middle);
  return x0 + w;
}

function drawGhost(
  ctx: CanvasRenderingContext2D,
  x0: number,
  x1: number,
  y: number,
  h: number,
  refused: boolean,
  tokens: DesignTokens,
): void {
  const w = Math.max(2, x1 - x0);
  const colour = refused ? tokens.danger : tokens.accent;
  ctx.globalAlpha = 0.25;
  ctx.fillStyle = colour;
  ctx.fillRect(x0, y, w, h);
  ctx.globalAlpha = 1;
  ctx.setLineDash([4, 3]);
  ctx.strokeStyle = colour;
  ctx.lineWidth = 2;
  ctx.strokeRect(x0 + 1, y + 1, w - 2, h - 2);
  ctx.setLineDash([]);
  if (refused && w > 20) {
    ctx.fillStyle = tokens.danger;
    ctx.fillText('✕ refused', x0 + 4, y + h / 2);
  }
}

/**
 * A window not sent yet: translucent with a dashed outline in the accent colour when it can be
 * sent (a queued change's also hatched one way, its label saying when it goes); when refused, in the danger colour with a cross hatching and a ✕ mark, so refusal does
 * not rest on colour alone. The label is the longest of its texts that fits inside, never cut.
 */
/**
 * Hatches a rectangle with 1 px lines rising to the right every `spacingPx` (and falling too
 * when `cross`), clipped to it: the pattern beside the colour that tells a state apart.
 */
function hatch(
  ctx: CanvasRenderingContext2D,
  rect: { x0: number; y: number; w: number; h: number },
  colour: string,
  alpha: number,
  spacingPx: number,
  cross: boolean,
): void {
  const { x0, y, w, h } = rect;
  ctx.save();
  ctx.beginPath();
  ctx.rect(x0, y, w, h);
  ctx.clip();
  ctx.globalAlpha = alpha;
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let hx = x0 - h; hx < x0 + w; hx += spacingPx) {
    ctx.moveTo(hx, y + h);
    ctx.lineTo(hx + h, y);
    if (cross) {
      ctx.moveTo(hx, y);
      ctx.lineTo(hx + h, y + h);
    }
  }
  ctx.stroke();
  ctx.restore();
}

function drawGhostWindow(
  ctx: CanvasRenderingContext2D,
  ghost: GhostWindow,
  x0: number,
  x1: number,
  y: number,
  h: number,
  tokens: DesignTokens,
  measure: (text: string) => number,
  focused: boolean,
): void {
  const w = Math.max(2, x1 - x0);
  const colour = ghost.refusal ? tokens.danger : tokens.accent;
  ctx.globalAlpha = 0.18;
  ctx.fillStyle = colour;
  ctx.fillRect(x0, y, w, h);
  if (ghost.refusal) hatch(ctx, { x0, y, w, h }, colour, 0.45, 6, true);
  // A queued change's window: hatched one way, so it reads as "not sent yet, but coming" apart
  // from a plan's ghost (plain) and a refused one (cross-hatched), not by colour alone.
  if (ghost.queued) hatch(ctx, { x0, y, w, h }, colour, 0.35, 8, false);
  ctx.globalAlpha = 1;
  ctx.setLineDash([4, 3]);
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1.5;
  ctx.strokeRect(x0 + 0.75, y + 0.75, w - 1.5, h - 1.5);
  ctx.setLineDash([]);
  const left = Math.max(x0, LABEL_WIDTH_PX);
  const inner = x0 + w - left - 8;
  const texts = [ghostLabel(ghost), ghost.refusal ? `✕ ${ghost.name}` : ghost.name, '✕'];
  const text = texts.find((t) => (ghost.refusal || t !== '✕') && measure(t) <= inner);
  if (text) {
    ctx.fillStyle = ghost.refusal ? tokens.danger : tokens.text;
    ctx.fillText(text, left + 4, y + h / 2);
  }
  if (focused) {
    ctx.strokeStyle = tokens.focus;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 + 1, y + 1, w - 2, h - 2);
  }
}
