import { isActiveStatus } from '#domain/command.ts';
import { deviceRowLabel } from '#client/lib/device-state-words.ts';
import { shortClockLabel } from '#client/lib/site-clock-words.ts';
import {
  chooseAxisTiers,
  layoutLowerTier,
  layoutUpperTier,
  type AxisLabel,
} from './axis-layout.ts';
import type { TimelineRow } from './rows.ts';
import { transitionLook } from './status-transitions.ts';
import { cachedAxisTicks } from './ticks.ts';
import { timeToX } from './time-scale.ts';
import { drawBar, drawEndedLabels, drawGhost, drawGhostWindow, nextStartMs } from './draw-bars.ts';
import { FONT_SIZE_PX, fitText, measurer } from './draw-text.ts';
import {
  AXIS_HEIGHT_PX,
  LABEL_WIDTH_PX,
  UPPER_TIER_HEIGHT_PX,
  type FrameState,
} from './frame-state.ts';

export {
  AXIS_HEIGHT_PX,
  LABEL_WIDTH_PX,
  UPPER_TIER_HEIGHT_PX,
  type DragPreview,
  type FrameState,
  type MovingPreview,
} from './frame-state.ts';

/**
 * Draws one frame, only the rows and bars in view, in CSS pixels (caller applied the
 * devicePixelRatio; docs/decisions/001-timeline-rendering.md). Returns the axis labels as drawn.
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
      // The site's name spans the row; a zone other than the header's adds the row's own hours.
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
    // Ended windows first and subdued, then live ones, then ended labels only where no live bar or
    // label is: a cancelled window never covers or peeks from under a live one.
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
          // Room for a label beside a narrow bar: up to the next (live) bar or the view's edge.
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

  const nowX = xOf(nowMs);
  if (nowX >= timeLeft && nowX <= widthPx) {
    ctx.fillStyle = tokens.danger;
    ctx.fillRect(nowX - 1, 0, 2, heightPx);
  }
  return labels;
}

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
