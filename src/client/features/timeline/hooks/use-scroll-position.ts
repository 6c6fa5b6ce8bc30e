import { useEffect, useRef, useState, type UIEvent } from 'react';
import { visibleRowRange, type TimelineRow } from '../lib/rows.ts';
import { SETTLE_AFTER_MS } from './use-time-scale.ts';

/** Rows the accessible layer holds beyond the visible ones on each side. */
export const HELD_ROWS_BEYOND_VIEW = 15;

/**
 * The grid's vertical scroll: a ref the canvas reads every frame, and React state that follows
 * only when the visible rows leave those the accessible layer holds, or after `SETTLE_AFTER_MS`
 * (main-thread time per frame, docs/architecture.md, Budgets).
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
