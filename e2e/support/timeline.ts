import type { Page } from '@playwright/test';

// Geometry of the canvas (src/client/features/timeline/lib/draw.ts and rows.ts).
export const LABEL_WIDTH_PX = 200;
export const AXIS_HEIGHT_PX = 44;
export const SITE_ROW_PX = 26;
export const DEVICE_ROW_PX = 34;

/** Page coordinates of instant `ms` on device row `deviceRow` (0 = first device of the site). */
export async function pointOf(page: Page, deviceRow: number, ms: number) {
  const canvas = page.getByTestId('timeline-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('timeline canvas not visible');
  const originMs = Number(await canvas.getAttribute('data-origin-ms'));
  const msPerPx = Number(await canvas.getAttribute('data-ms-per-px'));
  const scrollTop = Number(await canvas.getAttribute('data-scroll-top'));
  return {
    x: box.x + LABEL_WIDTH_PX + (ms - originMs) / msPerPx,
    y:
      box.y +
      AXIS_HEIGHT_PX +
      SITE_ROW_PX +
      DEVICE_ROW_PX * deviceRow +
      DEVICE_ROW_PX / 2 -
      scrollTop,
  };
}

/** Drags on device row `deviceRow` from instant `fromMs` to `toMs`; `release` false holds the button. */
export async function drag(
  page: Page,
  deviceRow: number,
  fromMs: number,
  toMs: number,
  release = true,
) {
  const from = await pointOf(page, deviceRow, fromMs);
  const to = await pointOf(page, deviceRow, toMs);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  if (release) await page.mouse.up();
}
