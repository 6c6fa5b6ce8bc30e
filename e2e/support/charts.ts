import type { Locator } from '@playwright/test';

/** A box in CSS px, as `boundingBox()` gives it. */
export type Box = { x: number; y: number; width: number; height: number };

/** The chart's own drawing in a history chart's figure: the `<svg>` under recharts' wrapper. */
export const chartSvg = (figure: Locator) => figure.locator('.recharts-wrapper > svg');
