import type { DesignTokens } from '../../../lib/design-tokens.ts';
import type { Bar } from './bars.ts';
import type { GhostWindow } from './ghosts.ts';
import type { TimelineRow } from './rows.ts';
import type { StatusTransition } from './status-transitions.ts';
import type { TimeScale } from './time-scale.ts';

/**
 * Geometry of the canvas in CSS pixels: a label column on the left, the two-tier time header on
 * top (periods in the upper tier, their divisions in the lower one).
 */
export const LABEL_WIDTH_PX = 200;
export const UPPER_TIER_HEIGHT_PX = 22;
export const AXIS_HEIGHT_PX = 44;

/**
 * A window being dragged out on a row, with the verdict of the drag rule; `xPx`, `yPx`: the
 * pointer in canvas CSS pixels (where its readout shows).
 */
export interface DragPreview {
  rowIndex: number;
  startMs: number;
  endMs: number;
  refused: boolean;
  xPx?: number;
  yPx?: number;
}

/**
 * A received bar being moved or resized by a replace drag (`xPx`, `yPx`: the pointer) or by
 * keys (no pointer: its readout shows at the bar), with the drag rule's verdict.
 */
export interface MovingPreview {
  barId: string;
  rowIndex: number;
  startMs: number;
  endMs: number;
  refused: boolean;
  xPx?: number;
  yPx?: number;
}

/** Everything one frame needs. */
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
  /**
   * Device rows chosen together (Shift+Up/Down) for a paste onto several rows, by device ID;
   * drawn with a band in the label column. Absent or empty: none.
   */
  selectedDeviceIds?: ReadonlySet<string>;
  /** The keyboard's time on the focused row when no window has focus (epoch ms): a thin line. */
  cursorMs?: number | undefined;
  /** Bars changing status, by bar ID, drawn crossfading (empty or absent: none). */
  transitions?: ReadonlyMap<string, StatusTransition>;
  /** Clock the transitions run on (requestAnimationFrame time), in ms. */
  timeMs?: number;
  /** Colours and font of the theme in use (styles/tokens.css through lib/design-tokens.ts). */
  tokens: DesignTokens;
  /**
   * Windows not sent yet (a dispatch plan's rows) by device ID, each list sorted by start: a row
   * holding any draws its command bars in its upper half and these as ghost bars in its lower
   * half, so an overlap shows as one above the other.
   */
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]>;
}
