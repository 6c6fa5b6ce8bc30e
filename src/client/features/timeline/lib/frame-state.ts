import type { DesignTokens } from '#client/lib/design-tokens.ts';
import type { Bar } from './bars.ts';
import type { GhostWindow } from './ghosts.ts';
import type { TimelineRow } from './rows.ts';
import type { StatusTransition } from './status-transitions.ts';
import type { TimeScale } from './time-scale.ts';

/** Canvas geometry in CSS pixels: a label column on the left, the two-tier time header on top. */
export const LABEL_WIDTH_PX = 200;
export const UPPER_TIER_HEIGHT_PX = 22;
export const AXIS_HEIGHT_PX = 44;

/** A window being dragged out, with the drag rule's verdict; `xPx`, `yPx`: the pointer. */
export interface DragPreview {
  rowIndex: number;
  startMs: number;
  endMs: number;
  refused: boolean;
  xPx?: number;
  yPx?: number;
}

/** A received bar moved or resized by drag (`xPx`, `yPx`: the pointer) or keys, with its verdict. */
export interface MovingPreview extends DragPreview {
  barId: string;
}

export interface FrameState {
  widthPx: number;
  heightPx: number;
  scale: TimeScale;
  rows: readonly TimelineRow[];
  scrollTopPx: number;
  firstRow: number;
  lastRow: number;
  barsByDevice: ReadonlyMap<string, readonly Bar[]>;
  nowMs: number;
  utc: boolean;
  focusedRow: number;
  focusedBarId: string | undefined;
  selectedBarId: string | undefined;
  drag: DragPreview | undefined;
  /** Bar being moved by a replace drag or by keys: drawn as a ghost at its new place. */
  moving: MovingPreview | undefined;
  /** Device rows chosen together (Shift+Up/Down) for a paste, by device ID. */
  selectedDeviceIds?: ReadonlySet<string>;
  /** The keyboard's time on the focused row when no window has focus (epoch ms): a thin line. */
  cursorMs?: number | undefined;
  /** Bars changing status, by bar ID, drawn crossfading (empty or absent: none). */
  transitions?: ReadonlyMap<string, StatusTransition>;
  /** Clock the transitions run on (requestAnimationFrame time), in ms. */
  timeMs?: number;
  /** Colours and font of the theme in use (styles/tokens.css through lib/design-tokens.ts). */
  tokens: DesignTokens;
  /** Windows not sent yet by device ID, sorted by start: drawn in the row's lower half. */
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]>;
}
