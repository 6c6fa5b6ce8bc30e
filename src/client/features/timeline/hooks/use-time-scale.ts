import { useCallback, useEffect, useRef, useState } from 'react';
import { scaleForSpan, type TimeScale } from '../lib/time-scale.ts';

const HOUR_MS = 3_600_000;

/**
 * How long a pan or zoom gesture must rest before React renders the new scale, in ms: what
 * React renders from the scale (the accessible bars in range, the viewport report) need not
 * follow every frame, the canvas does (main-thread time per pan frame, docs/architecture.md,
 * Budgets).
 */
export const SETTLE_AFTER_MS = 100;

/**
 * The time scale (origin and ms per pixel): a ref for what reads it between renders (pointer
 * handlers, the canvas frame) and React state for what renders from it. Starts two hours before
 * `nowMs` with 24 hours across `timeWidthPx`. `applyScale` (keys, toolbar) sets both at once;
 * `panScale` (drag-pan, wheel) sets the ref and renders only once the gesture has rested for
 * `SETTLE_AFTER_MS`. Both call `onChange` with the new scale (draw, data attributes).
 */
export function useTimeScale(
  nowMs: number,
  timeWidthPx: number,
  onChange: (scale: TimeScale) => void,
) {
  const [scale, setScale] = useState<TimeScale>(() =>
    scaleForSpan(nowMs - 2 * HOUR_MS, 24 * HOUR_MS, timeWidthPx),
  );
  const scaleRef = useRef(scale);
  const settleRef = useRef<ReturnType<typeof setTimeout>>(undefined);
  const applyScale = useCallback(
    (next: TimeScale) => {
      clearTimeout(settleRef.current);
      scaleRef.current = next;
      setScale(next);
      onChange(next);
    },
    [onChange],
  );
  const panScale = useCallback(
    (next: TimeScale) => {
      scaleRef.current = next;
      onChange(next);
      clearTimeout(settleRef.current);
      settleRef.current = setTimeout(() => setScale(scaleRef.current), SETTLE_AFTER_MS);
    },
    [onChange],
  );
  useEffect(() => () => clearTimeout(settleRef.current), []);
  return { scale, scaleRef, applyScale, panScale };
}
