import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { scaleAroundNow, type TimeScale } from '../lib/time-scale.ts';

const DAY_MS = 86_400_000;

/**
 * How long a pan or zoom gesture must rest before React renders the new scale, in ms: what
 * React renders from the scale (the accessible bars in range, the viewport report) need not
 * follow every frame, the canvas does (main-thread time per pan frame, docs/architecture.md,
 * Budgets).
 */
export const SETTLE_AFTER_MS = 100;

/**
 * The time scale (origin and ms per pixel): a ref for what reads it between renders (pointer
 * handlers, the canvas frame) and React state for what renders from it. Starts as the Day preset:
 * 24 hours (or `firstSpanMs`) across `timeWidthPx` with `nowMs` a quarter from the left; until the operator first
 * pans or zooms, a new `timeWidthPx` (the grid's real width, known after layout, or a resized
 * window) fits that first view again. `applyScale` (keys, toolbar) sets both at once;
 * `panScale` (drag-pan, wheel) sets the ref and renders only once the gesture has rested for
 * `SETTLE_AFTER_MS`. Both call `onChange` with the new scale (draw, data attributes), and
 * `onSettled` once the operator's change has rested (at once for a key or button, after the rest
 * for a drag or wheel): what the page keeps in the URL. Fitting the first view is not a change.
 */
export function useTimeScale(
  nowMs: number,
  timeWidthPx: number,
  onChange: (scale: TimeScale) => void,
  firstSpanMs = DAY_MS,
  onSettled?: (scale: TimeScale) => void,
) {
  const [scale, setScale] = useState<TimeScale>(() =>
    scaleAroundNow(nowMs, firstSpanMs, timeWidthPx),
  );
  const scaleRef = useRef(scale);
  const settleRef = useRef<ReturnType<typeof setTimeout>>(undefined);
  const movedRef = useRef(false);
  const settledRef = useRef(onSettled);
  useLayoutEffect(() => {
    settledRef.current = onSettled;
  });
  const applyScale = useCallback(
    (next: TimeScale) => {
      movedRef.current = true;
      clearTimeout(settleRef.current);
      scaleRef.current = next;
      setScale(next);
      onChange(next);
      settledRef.current?.(next);
    },
    [onChange],
  );
  const panScale = useCallback(
    (next: TimeScale) => {
      movedRef.current = true;
      scaleRef.current = next;
      onChange(next);
      clearTimeout(settleRef.current);
      settleRef.current = setTimeout(() => {
        setScale(scaleRef.current);
        settledRef.current?.(scaleRef.current);
      }, SETTLE_AFTER_MS);
    },
    [onChange],
  );
  // Fits the first view to the width the grid really has; the clock in `nowMs` is read only here.
  const firstNowMsRef = useRef(nowMs);
  const firstSpanRef = useRef(firstSpanMs);
  useLayoutEffect(() => {
    if (movedRef.current) return;
    const first = scaleAroundNow(firstNowMsRef.current, firstSpanRef.current, timeWidthPx);
    scaleRef.current = first;
    setScale(first);
    onChange(first);
  }, [timeWidthPx, onChange]);
  useEffect(() => () => clearTimeout(settleRef.current), []);
  return { scale, scaleRef, applyScale, panScale };
}
