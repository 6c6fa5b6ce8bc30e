import { useLayoutEffect, useState, type RefObject } from 'react';

/** Size in CSS pixels of the canvas's scroller (ResizeObserver); `heightPx`, when given, fixes the height. */
export function useCanvasSize(
  scrollerRef: RefObject<HTMLElement | null>,
  heightPx: number | undefined,
): { width: number; height: number } {
  const [size, setSize] = useState({ width: 1000, height: heightPx ?? 560 });
  useLayoutEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    const observer = new ResizeObserver(() => {
      setSize({ width: scroller.clientWidth, height: heightPx ?? scroller.clientHeight });
    });
    observer.observe(scroller);
    return () => observer.disconnect();
  }, [scrollerRef, heightPx]);
  return size;
}
