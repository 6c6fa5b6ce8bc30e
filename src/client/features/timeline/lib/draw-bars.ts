import { isActiveStatus, type CancellationReason, type CommandStatus } from '#domain/command.ts';
import type { DesignTokens } from '#client/lib/design-tokens.ts';
import { barLabels, type Bar } from './bars.ts';
import { EDIT_LEAD_TIME_MS } from './edit-lock.ts';
import { LABEL_WIDTH_PX, type FrameState } from './frame-state.ts';
import { ghostLabel, type GhostWindow } from './ghosts.ts';
import {
  transitionLook,
  type StatusTransition,
  type TransitionLook,
} from './status-transitions.ts';

/** The bars of the timeline's canvas; each state told apart by a mark or a pattern beside its colour. */

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

function drawLock(ctx: CanvasRenderingContext2D, x: number, y: number, colour: string): void {
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.arc(x + 4, y + 3, 2.5, Math.PI, 0);
  ctx.stroke();
  ctx.fillStyle = colour;
  ctx.fillRect(x, y + 3, 8, 6);
}

/** Where the room beside bar `b` ends: the next bar's start (the next live one's for a live bar), else `viewEndMs`. */
export function nextStartMs(
  bars: readonly Bar[],
  b: number,
  live: boolean,
  viewEndMs: number,
): number {
  for (let n = b + 1; n < bars.length; n++) {
    const next = bars[n];
    if (!next || next.startMs >= viewEndMs) break;
    if (!live || isActiveStatus(next.status)) return next.startMs;
  }
  return viewEndMs;
}

/** Opacity of an ended window: behind the live ones, still readable, a cancelled one fainter. */
const ENDED_ALPHA: Partial<Record<CommandStatus, number>> = { completed: 0.7, cancelled: 0.45 };

/** A received window within the lead time (lib/edit-lock.ts) can no longer move: it shows the lock. */
function lockedSoon(bar: Bar, nowMs: number): boolean {
  return bar.status === 'received' && bar.startMs < nowMs + EDIT_LEAD_TIME_MS;
}

export function drawBar(
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
 * A row's ended windows' labels, drawn after the live ones and only where none is
 * (`liveSpans`: left/right x pairs), so an ended label never overlaps a live one.
 */
export function drawEndedLabels(
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

/** The status mark and the longest label that fits (inside, else beside); never a cut text. */
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
  // Running, or starting within the lead time: a lock where the mark would be.
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

export function drawGhost(
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
  dashedOutline(ctx, { x0, y, w, h }, colour, 2);
  if (refused && w > 20) {
    ctx.fillStyle = tokens.danger;
    ctx.fillText('✕ refused', x0 + 4, y + h / 2);
  }
}

/**
 * A dashed outline of `rect` in `colour`, `lineWidthPx` wide, its stroke wholly inside the
 * rectangle's edges; the dash is turned off again after.
 */
function dashedOutline(
  ctx: CanvasRenderingContext2D,
  rect: { x0: number; y: number; w: number; h: number },
  colour: string,
  lineWidthPx: number,
): void {
  const { x0, y, w, h } = rect;
  const inset = lineWidthPx / 2;
  ctx.setLineDash([4, 3]);
  ctx.strokeStyle = colour;
  ctx.lineWidth = lineWidthPx;
  ctx.strokeRect(x0 + inset, y + inset, w - lineWidthPx, h - lineWidthPx);
  ctx.setLineDash([]);
}

/** Hatches a rectangle every `spacingPx` (both ways when `cross`), clipped to it. */
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

/**
 * A window not sent yet: dashed in the accent colour, a queued one hatched; a refused one in the
 * danger colour, cross-hatched with a ✕, so refusal does not rest on colour alone.
 */
export function drawGhostWindow(
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
  // Hatched one way: "coming" apart from a plan's ghost and a refused one, not by colour alone.
  if (ghost.queued) hatch(ctx, { x0, y, w, h }, colour, 0.35, 8, false);
  ctx.globalAlpha = 1;
  dashedOutline(ctx, { x0, y, w, h }, colour, 1.5);
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
