import { useEffect, type RefObject } from 'react';
import { LABEL_WIDTH_PX } from '../lib/draw.ts';
import { panBy, zoomAround, type TimeScale } from '../lib/time-scale.ts';

/**
 * Wheel: Ctrl/Cmd zooms around the pointer, Shift or sideways pans, else the page scrolls.
 * Non-passive, since React's onWheel cannot prevent the page zoom.
 */
export function useWheelZoom(
  scrollerRef: RefObject<HTMLElement | null>,
  scaleRef: RefObject<TimeScale>,
  applyScale: (next: TimeScale) => void,
  timeWidthPx: number,
): void {
  useEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    const onWheel = (event: WheelEvent) => {
      const x = event.clientX - scroller.getBoundingClientRect().left - LABEL_WIDTH_PX;
      if (event.ctrlKey || event.metaKey) {
        event.preventDefault();
        applyScale(
          zoomAround(scaleRef.current, Math.max(0, x), Math.exp(event.deltaY * 0.002), timeWidthPx),
        );
      } else if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
        event.preventDefault();
        applyScale(panBy(scaleRef.current, event.shiftKey ? event.deltaY : event.deltaX));
      }
    };
    scroller.addEventListener('wheel', onWheel, { passive: false });
    return () => scroller.removeEventListener('wheel', onWheel);
  }, [scrollerRef, scaleRef, applyScale, timeWidthPx]);
}
