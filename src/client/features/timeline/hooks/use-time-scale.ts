import { useCallback, useRef, useState } from 'react';
import { scaleForSpan, type TimeScale } from '../lib/time-scale.ts';

const HOUR_MS = 3_600_000;

/**
 * The time scale (origin and ms per pixel): React state for what renders from it, and a ref
 * for what reads it between renders (pointer handlers, the canvas frame). Starts two hours
 * before `nowMs` with 24 hours across `timeWidthPx`. `applyScale` sets both and asks for a draw.
 */
export function useTimeScale(nowMs: number, timeWidthPx: number, requestDraw: () => void) {
  const [scale, setScale] = useState<TimeScale>(() =>
    scaleForSpan(nowMs - 2 * HOUR_MS, 24 * HOUR_MS, timeWidthPx),
  );
  const scaleRef = useRef(scale);
  const applyScale = useCallback(
    (next: TimeScale) => {
      scaleRef.current = next;
      setScale(next);
      requestDraw();
    },
    [requestDraw],
  );
  return { scale, scaleRef, applyScale };
}
