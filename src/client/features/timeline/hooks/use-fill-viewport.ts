import { useLayoutEffect, type RefObject } from 'react';

/** Least height the page keeps on a very short window, in CSS pixels: the toolbar and a few rows. */
const MIN_HEIGHT_PX = 360;

/**
 * Gives `elementRef`'s element the height from its top to the window's bottom edge less
 * `bottomGapPx` (its `--fill-height` custom property, in px), kept current when the window or the
 * page above it changes size (the app header may wrap), so the timeline takes the whole screen
 * below the navigation whatever the window size; at least 360 px.
 */
export function useFillViewport(
  elementRef: RefObject<HTMLElement | null>,
  bottomGapPx: number,
): void {
  useLayoutEffect(() => {
    const element = elementRef.current;
    if (!element) return;
    const fit = () => {
      const topPx = element.getBoundingClientRect().top + window.scrollY;
      const heightPx = Math.max(MIN_HEIGHT_PX, window.innerHeight - topPx - bottomGapPx);
      element.style.setProperty('--fill-height', `${Math.floor(heightPx)}px`);
    };
    fit();
    window.addEventListener('resize', fit);
    // What sits above the page (the app header) can change height without the window resizing.
    const observer = new ResizeObserver(fit);
    observer.observe(document.body);
    return () => {
      window.removeEventListener('resize', fit);
      observer.disconnect();
    };
  }, [elementRef, bottomGapPx]);
}
