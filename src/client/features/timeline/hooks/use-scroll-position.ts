import { useEffect, useRef, useState, type UIEvent } from 'react';
import { visibleRowRange, type TimelineRow } from '../lib/rows.ts';
import { SETTLE_AFTER_MS } from './use-time-scale.ts';

/** Rows the accessible layer holds beyond the visible ones on each side. */
export const HELD_ROWS_BEYOND_VIEW = 15;

/**
 * The vertical scroll of the grid: a ref updated on every scroll event (the canvas draws from
 * it in the next animation frame) and React state that follows only when React must render:
 * at once when the visible rows leave the rows the accessible layer holds (`held`, the visible
 * rows of the rendered scroll plus `HELD_ROWS_BEYOND_VIEW` each side), otherwise once the scroll
 * has rested for `SETTLE_AFTER_MS`. So a scroll frame costs a draw, not a React render
 * (main-thread time per frame, docs/architecture.md, Budgets). `onChange` hears every scroll
 * position in CSS pixels (draw, data attribute).
 */
export function useScrollPosition(
  rows: readonly TimelineRow[],
  rowsHeightPx: number,
  onChange: (scrollTopPx: number) => void,
) {
  const [scrollTop, setScrollTop] = useState(0);
  const scrollTopRef = useRef(0);
  const settleRef = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(settleRef.current), []);
  const visible = visibleRowRange(rows, scrollTop, rowsHeightPx);
  const held = {
    first: Math.max(0, visible.first - HELD_ROWS_BEYOND_VIEW),
    last: Math.min(rows.length - 1, visible.last + HELD_ROWS_BEYOND_VIEW),
  };

  const onScroll = (event: UIEvent<HTMLElement>) => {
    const top = event.currentTarget.scrollTop;
    scrollTopRef.current = top;
    onChange(top);
    clearTimeout(settleRef.current);
    const live = visibleRowRange(rows, top, rowsHeightPx);
    if (live.first < held.first || live.last > held.last) setScrollTop(top);
    else settleRef.current = setTimeout(() => setScrollTop(scrollTopRef.current), SETTLE_AFTER_MS);
  };
  return { scrollTop, scrollTopRef, visible, held, onScroll };
}
