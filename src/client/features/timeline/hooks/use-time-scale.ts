import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { scaleAroundNow, type TimeScale } from '../lib/time-scale.ts';

const DAY_MS = 86_400_000;

/** Rest (ms) before React renders a new scale; the canvas follows every frame (docs/architecture.md, Budgets). */
export const SETTLE_AFTER_MS = 100;

/**
 * The time scale as a ref (read between renders) and React state. `applyScale` sets both;
 * `panScale` renders once the gesture rested `SETTLE_AFTER_MS`. `onSettled` hears the operator's
 * changes (kept in the URL); refitting the first view to the real width is not one.
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
