import type { Page } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';

/*
 * What the operator scrolled to stays where it is: a toast coming in after a submission from far
 * down the device page moves nothing of the page and blanks none of it (Chromium once kept the
 * window's scroll offset while the page moved into its own scrolling box, and drew the page's
 * box above the window's top: everything below the submit button was blank), and the wheel
 * scrolls the page rather than changing a focused power field's value.
 */

const SITE = 'PLANT-EU-001';
const DEVICE = 'BAT-EU-001-A';

/**
 * What the page shows at a point of the window once the next frame is drawn (the toast's strip
 * is made room for in that frame's resize observation): the element there, described for the
 * failure message, and whether it is the page's bare background (the document, body or the
 * page's box itself rather than anything in it).
 */
async function shownAt(page: Page, xPx: number, yPx: number) {
  // Page-side code as text: this file is typed for Node, without the DOM's names.
  return page.evaluate<{ what: string; bare: boolean }>(`(async () => {
    await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));
    const element = document.elementFromPoint(${xPx}, ${yPx});
    if (!element) return { what: 'nothing', bare: true };
    const bare = element === document.documentElement || element === document.body ||
      element.classList.contains('app-page');
    const what = element.tagName.toLowerCase() +
      (element.className ? '.' + String(element.className).split(' ').join('.') : '') +
      (bare ? '' : ' "' + (element.textContent ?? '').trim().slice(0, 40) + '"');
    return { what, bare };
  })()`);
}

test.use({ viewport: { width: 1280, height: 720 } });

test('after a submit from a scrolled position, the device page stays where it was while the toast shows', async ({
  page,
}) => {
  await signIn(page);
  await bindSite(page, SITE);
  await page.goto(`/sites/${SITE}/devices/${DEVICE}`);
  const submit = page.getByRole('button', { name: 'Submit command' });
  await expect(submit).toBeVisible();
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('-700');
  // As the operator did: wheel down the page (beside the form) to its end, where the submit
  // button is in the window's upper half with the page's commands below it.
  const atFirstPx = (await submit.boundingBox())?.y ?? 0;
  await page.mouse.move(1200, 360);
  await page.mouse.wheel(0, 2000);
  await expect.poll(async () => (await submit.boundingBox())?.y).toBeLessThan(atFirstPx - 200);
  await page.waitForTimeout(300);
  const before = await submit.boundingBox();
  expect(before?.y).toBeGreaterThan(0);
  expect(before?.y).toBeLessThan(500);

  await submit.click();
  await expect(page.getByRole('button', { name: 'Undo', exact: true })).toBeVisible();
  const centre = await shownAt(page, 640, 360);
  expect(centre.bare, `at the window's centre: ${centre.what}`).toBe(false);
  const after = await submit.boundingBox();
  // The submit button is where it was (to a pixel: the box rounds its offset): the page neither
  // jumped nor moved out of the window.
  expect(Math.abs((after?.y ?? Number.NaN) - (before?.y ?? Number.NaN))).toBeLessThanOrEqual(1);
  await expect(page.getByRole('heading', { name: 'Commands' })).toBeInViewport();
  const lower = await shownAt(page, 640, 560);
  expect(lower.bare, `at 640,560: ${lower.what}`).toBe(false);
});

test('the wheel over a focused power field scrolls the page and leaves its value', async ({
  page,
}) => {
  await signIn(page);
  await bindSite(page, SITE);
  await page.goto(`/sites/${SITE}/devices/${DEVICE}`);
  const power = page.getByLabel('Target battery power (W)', { exact: true });
  await power.fill('-700');
  await expect(power).toBeFocused();
  const box = await power.boundingBox();
  if (!box) throw new Error('the power field is not shown');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, 3);
  await page.mouse.wheel(0, -3);
  await page.mouse.wheel(0, 100);
  await expect(power).toHaveValue('-700');
  await expect(power).toBeFocused();
  // The wheel still scrolls the page.
  await expect.poll(async () => (await power.boundingBox())?.y).toBeLessThan(box.y);
});
