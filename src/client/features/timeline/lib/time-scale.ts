/** Linear time scale: `originMs` at x = 0, `msPerPx` the zoom; epoch ms and CSS pixels. */
export interface TimeScale {
  originMs: number;
  msPerPx: number;
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Zoom presets: the span of time the visible width shows. */
export const ZOOM_PRESETS = [
  { id: '6h', label: '6 h', spanMs: 6 * HOUR_MS },
  { id: 'day', label: 'Day', spanMs: DAY_MS },
  { id: 'week', label: 'Week', spanMs: 7 * DAY_MS },
  { id: '30d', label: '30 days', spanMs: 30 * DAY_MS },
] as const;
export type ZoomPresetId = (typeof ZOOM_PRESETS)[number]['id'];

/** Free zoom limits: from 30 minutes to 60 days across the visible width. */
export const MIN_SPAN_MS = 30 * 60 * 1000;
export const MAX_SPAN_MS = 60 * DAY_MS;

/** x in pixels of an instant. */
export function timeToX(scale: TimeScale, ms: number): number {
  return (ms - scale.originMs) / scale.msPerPx;
}

/** Instant at x pixels. */
export function xToTime(scale: TimeScale, x: number): number {
  return scale.originMs + x * scale.msPerPx;
}

function clampSpan(spanMs: number): number {
  return Math.min(MAX_SPAN_MS, Math.max(MIN_SPAN_MS, spanMs));
}

/** A scale showing `spanMs` (clamped to the free zoom limits) from `startMs` across `widthPx`. */
export function scaleForSpan(startMs: number, spanMs: number, widthPx: number): TimeScale {
  return { originMs: startMs, msPerPx: clampSpan(spanMs) / Math.max(1, widthPx) };
}

/** Zooms by `factor` (> 1 out) keeping the instant under `anchorX` in place, clamped to the zoom limits. */
export function zoomAround(
  scale: TimeScale,
  anchorX: number,
  factor: number,
  widthPx: number,
): TimeScale {
  const anchorMs = xToTime(scale, anchorX);
  const width = Math.max(1, widthPx);
  const msPerPx = clampSpan(scale.msPerPx * factor * width) / width;
  return { originMs: anchorMs - anchorX * msPerPx, msPerPx };
}

/** "Now" a quarter from the left: the coming hours take most of the view, the recent past stays in sight. */
export const NOW_AT_FRACTION = 0.25;

/** A scale showing `spanMs` with `nowMs` at {@link NOW_AT_FRACTION}. */
export function scaleAroundNow(nowMs: number, spanMs: number, widthPx: number): TimeScale {
  const span = clampSpan(spanMs);
  return scaleForSpan(nowMs - span * NOW_AT_FRACTION, span, widthPx);
}

/** Moves the view by `dxPx` pixels (positive moves the view later in time). */
export function panBy(scale: TimeScale, dxPx: number): TimeScale {
  return { originMs: scale.originMs + dxPx * scale.msPerPx, msPerPx: scale.msPerPx };
}

/** The visible range `[startMs, endMs)` of a scale over `widthPx`. */
export function visibleRange(
  scale: TimeScale,
  widthPx: number,
): { startMs: number; endMs: number } {
  return { startMs: scale.originMs, endMs: scale.originMs + widthPx * scale.msPerPx };
}
