import { useEffect, useMemo, useRef, useLayoutEffect } from 'react';
import type { TimelineViewport } from '../lib/timeline-types.ts';
import type { TimelineRow } from '../lib/rows.ts';

/** Rest (ms) on top of `SETTLE_AFTER_MS` before the data layer hears of the view. */
const REPORT_AFTER_MS = 50;

/** Tells the data layer which rows and time range are in view, once the view rests, not per frame. */
export function useViewportReport(
  rows: readonly TimelineRow[],
  first: number,
  last: number,
  range: { startMs: number; endMs: number },
  onViewportChange: (viewport: TimelineViewport) => void,
): void {
  const callbackRef = useRef(onViewportChange);
  useLayoutEffect(() => {
    callbackRef.current = onViewportChange;
  });
  const deviceIdsInView = useMemo(() => {
    const ids: string[] = [];
    for (let i = first; i <= last; i++) {
      const row = rows[i];
      if (row?.kind === 'device') ids.push(row.device.deviceId);
    }
    return ids;
  }, [rows, first, last]);
  const { startMs, endMs } = range;
  useEffect(() => {
    const timer = setTimeout(
      () => callbackRef.current({ deviceIds: deviceIdsInView, startMs, endMs }),
      REPORT_AFTER_MS,
    );
    return () => clearTimeout(timer);
  }, [deviceIdsInView, startMs, endMs]);
}
