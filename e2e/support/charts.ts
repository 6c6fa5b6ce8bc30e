import { expect, type Locator } from '@playwright/test';

/** A box in CSS px, as `boundingBox()` gives it. */
export type Box = { x: number; y: number; width: number; height: number };

/** The chart's own drawing in a history chart's figure: the `<svg>` under recharts' wrapper. */
export const chartSvg = (figure: Locator) => figure.locator('.recharts-wrapper > svg');

const boxesOf = (locator: Locator) =>
  locator.evaluateAll((elements) =>
    elements.map((element) => {
      const { x, y, width, height } = element.getBoundingClientRect();
      return { x, y, width, height, text: element.textContent ?? '' };
    }),
  );

/** Fails when a text of the chart reaches out of its `<svg>` (where it would be cut off). */
export async function expectTextsInside(svg: Locator) {
  const frame = (await svg.boundingBox()) as Box;
  const outside = (await boxesOf(svg.locator('text'))).filter(
    (text) =>
      text.width > 0 &&
      (text.x < frame.x - 1 ||
        text.y < frame.y - 1 ||
        text.x + text.width > frame.x + frame.width + 1 ||
        text.y + text.height > frame.y + frame.height + 1),
  );
  expect(outside.map((text) => text.text)).toEqual([]);
}

/** Fails when two of `labels` (tick labels of one axis) overlap. */
export async function expectNoOverlap(labels: Locator) {
  const boxes = (await boxesOf(labels)).sort((a, b) => a.x - b.x);
  for (const [index, box] of boxes.entries()) {
    const next = boxes[index + 1];
    if (next) expect(box.x + box.width, `${box.text} runs into ${next.text}`).toBeLessThan(next.x);
  }
}
