import type { Bar } from './bars.ts';
import type { GhostWindow } from './ghosts.ts';
import type { RowTarget } from './timeline-types.ts';

/** Where a card is anchored, in the grid's CSS pixels (the pointer, or the focused window). */
interface Anchor {
  x: number;
  y: number;
}

/** A command bar or a ghost window with its row. */
export type CardSubject = RowTarget &
  ({ bar: Bar; ghost?: undefined } | { ghost: GhostWindow; bar?: undefined });

/** The one card the timeline shows: its subject and where it is anchored. */
export type ShownCard = CardSubject & Anchor;

/** Below the row's top: a bar's card under its upper half, a ghost's under its lower half. */
const BAR_CARD_OFFSET_PX = 18;
const GHOST_CARD_OFFSET_PX = 34;

/**
 * The one card the timeline shows, following the last input: after a key, the focused window's;
 * after a pointer move, what the pointer is over, else the focused window's. So one card never
 * covers another, and a resting pointer never hides what the keys chose.
 */
export function shownCard(input: {
  hoverBar: (RowTarget & { bar: Bar } & Anchor) | undefined;
  hoverGhost: (RowTarget & { ghost: GhostWindow } & Anchor) | undefined;
  gridFocused: boolean;
  keyboardLast: boolean;
  focused: CardSubject | undefined;
  focusedRowTopPx: number;
  xOfMs: (ms: number) => number;
}): ShownCard | undefined {
  const { focused } = input;
  const focusedCard =
    input.gridFocused && focused
      ? {
          ...focused,
          x: input.xOfMs((focused.bar ?? focused.ghost).startMs),
          y: input.focusedRowTopPx + (focused.ghost ? GHOST_CARD_OFFSET_PX : BAR_CARD_OFFSET_PX),
        }
      : undefined;
  if (input.keyboardLast && focusedCard) return focusedCard;
  return input.hoverGhost ?? input.hoverBar ?? focusedCard;
}
