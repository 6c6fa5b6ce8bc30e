import { useCallback, useState } from 'react';

/** The content-box width in px of the ref's element (ResizeObserver); 0 until measured. */
export function useElementWidth<T extends Element>(): [
  (element: T | null) => (() => void) | undefined,
  number,
] {
  const [widthPx, setWidthPx] = useState(0);
  const ref = useCallback((element: T | null) => {
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => {
      // Whole px: sub-pixel changes would redraw the chart for nothing.
      if (entry) setWidthPx(Math.floor(entry.contentRect.width));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, widthPx];
}
