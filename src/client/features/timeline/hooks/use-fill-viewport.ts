import { useLayoutEffect, type RefObject } from 'react';

/** Least height the page keeps on a very short window, in CSS pixels: the toolbar and a few rows. */
const MIN_HEIGHT_PX = 360;

/**
 * Sets `--fill-height` (px) on the element: from its top to the window's bottom less
 * `bottomGapPx`, at least 360 px, kept current as the window or the header above resizes.
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
