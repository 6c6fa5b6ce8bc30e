import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
// Geometry of the canvas (src/client/features/timeline/lib/draw.ts and rows.ts).
const LABEL_WIDTH_PX = 200;
const AXIS_HEIGHT_PX = 36;
const SITE_ROW_PX = 26;
const DEVICE_ROW_PX = 34;

/** Opens the timeline with PLANT-EU-001 bound: row 1 is BAT-EU-001-A, row 2 -B, row 3 -C. */
async function openTimeline(page: Page): Promise<void> {
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  await page.getByRole('link', { name: 'Timeline' }).click();
  await expect(page.getByRole('heading', { name: 'Timeline' })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: /BAT-EU-001-A/ })).toBeAttached();
}

/** Page coordinates of instant `ms` on device row `deviceRow` (0 = first device of the site). */
async function pointOf(page: Page, deviceRow: number, ms: number) {
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

async function drag(page: Page, deviceRow: number, fromMs: number, toMs: number, release = true) {
  const from = await pointOf(page, deviceRow, fromMs);
  const to = await pointOf(page, deviceRow, toMs);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  if (release) await page.mouse.up();
}

/** Drag-creates a window on a row and submits it with a battery power; returns the command id. */
async function createByDrag(page: Page, deviceRow: number, fromMs: number, toMs: number) {
  await drag(page, deviceRow, fromMs, toMs);
  const dialog = page.getByRole('dialog', { name: 'New command' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Target battery power (W)').fill('-3000');
  await dialog.getByRole('button', { name: 'Submit command' }).click();
  const notice = page.getByRole('status').filter({ hasText: /submitted/ });
  await expect(notice).toBeVisible();
  const id = (await notice.textContent())?.match(/cmd_[A-Za-z0-9_-]+/)?.[0];
  expect(id).toBeTruthy();
  return id ?? '';
}

const bar = (page: Page, name: RegExp) => page.getByRole('gridcell', { name });

test('drag-create a window and submit it; an overlapping drag is refused with the reason', async ({
  page,
}) => {
  await openTimeline(page);
  const now = Date.now();
  await createByDrag(page, 0, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  await expect(bar(page, /^Hall A battery: -3 kW, .*Received/)).toBeAttached();

  await drag(page, 0, now + 1 * HOUR_MS, now + 2.5 * HOUR_MS, false);
  // Toasts (the Undo offer of the submission) are alerts too.
  const alert = page.getByRole('alert').filter({ hasText: 'Refused' });
  await expect(alert).toContainText(/Refused: overlaps command cmd_[A-Za-z0-9_-]+ \(received, /);
  await expect(alert).toContainText('Europe/Berlin');
  await page.mouse.up();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // Touching windows are allowed: a drag starting where the first ends opens the form.
  await drag(page, 0, now + 5 * HOUR_MS, now + 6 * HOUR_MS);
  await expect(page.getByRole('dialog', { name: 'New command' })).toBeVisible();
  await page.getByRole('button', { name: 'Close', exact: true }).click();

  const scan = await new AxeBuilder({ page }).analyze();
  const serious = scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([]);
});

test('replace a received command by dragging it', async ({ page }) => {
  await openTimeline(page);
  const now = Date.now();
  const oldId = await createByDrag(page, 1, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  const oldBar = bar(page, /^Hall B battery: -3 kW, .*Received/);
  await expect(oldBar).toBeAttached();
  const before = (await oldBar.textContent()) ?? '';

  await drag(page, 1, now + 2.5 * HOUR_MS, now + 5 * HOUR_MS);
  await expect(
    page.getByRole('status').filter({ hasText: `Command ${oldId} replaced by` }),
  ).toBeVisible();
  const moved = bar(page, /^Hall B battery: -3 kW, .*Received/);
  await expect(moved).toBeAttached();
  await expect(moved).not.toHaveText(before);
});

test('cancel from the detail panel', async ({ page }) => {
  await openTimeline(page);
  const now = Date.now();
  const id = await createByDrag(page, 2, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  await expect(bar(page, /^Office battery: -3 kW, .*Received/)).toBeAttached();
  const point = await pointOf(page, 2, now + 2.5 * HOUR_MS);
  await page.mouse.click(point.x, point.y);
  const panel = page.getByRole('complementary', { name: 'Command details' });
  await expect(panel).toContainText(id);
  await panel.getByRole('button', { name: 'Cancel command' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel command' }).click();
  await expect(panel).toContainText('Cancelled by an operator');
  await expect(bar(page, /^Office battery: -3 kW, .*Cancelled$/)).toBeAttached();
});

/** What the page-side code below uses of the browser (this file is typed for Node). */
interface PixelPage {
  devicePixelRatio: number;
  requestAnimationFrame(callback: () => void): number;
  document: {
    querySelector(selector: string): {
      getContext(kind: '2d'): {
        getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
      } | null;
    } | null;
  };
  recordedColours: string[];
}

/**
 * Starts recording, on every animation frame, the colour of the canvas pixel under page point
 * `at` (one entry per change); `recordedColours` returns them. The canvas has no DOM to ask.
 */
async function recordPixel(page: Page, at: { x: number; y: number }) {
  const box = await page.getByTestId('timeline-canvas').boundingBox();
  if (!box) throw new Error('timeline canvas not visible');
  await page.evaluate(
    ({ x, y }) => {
      const browser = globalThis as unknown as PixelPage;
      const ctx = browser.document
        .querySelector('[data-testid="timeline-canvas"]')
        ?.getContext('2d');
      if (!ctx) throw new Error('no canvas context');
      const dpr = browser.devicePixelRatio;
      browser.recordedColours = [];
      const sample = () => {
        const { data } = ctx.getImageData(x * dpr, y * dpr, 1, 1);
        const colour = `${data[0]},${data[1]},${data[2]}`;
        if (browser.recordedColours.at(-1) !== colour) browser.recordedColours.push(colour);
        browser.requestAnimationFrame(sample);
      };
      sample();
    },
    { x: Math.round(at.x - box.x), y: Math.round(at.y - box.y) },
  );
}
const recordedColours = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as PixelPage).recordedColours);

/** Creates a received bar on row 0, records its colour, and lets the clock make it executing. */
async function watchBarStartExecuting(page: Page) {
  await openTimeline(page);
  const now = Date.now();
  await createByDrag(page, 0, now + 20 * MINUTE_MS, now + 80 * MINUTE_MS);
  await expect(bar(page, /^Hall A battery: .*Received/)).toBeAttached();
  await page.mouse.move(0, 0);
  // Inside the bar, above its label and progress strip: 7 px below the bar's top.
  const centre = await pointOf(page, 0, now + 65 * MINUTE_MS);
  await recordPixel(page, { x: centre.x, y: centre.y - DEVICE_ROW_PX / 2 + 7 });
  await sandboxAdmin.advanceClock(30 * MINUTE_MS);
  await expect(bar(page, /^Hall A battery: .*Executing$/)).toBeAttached();
  // Wait for the executing colour itself: on a loaded machine two polls can fall between frames
  // mid-transition, so "no new colour since the last poll" does not mean the transition ended.
  await expect.poll(async () => (await recordedColours(page)).at(-1)).toBe(EXECUTING_RGB);
  return recordedColours(page);
}

test('a bar turns executing then completed as the sandbox clock moves, in place', async ({
  page,
}) => {
  await openTimeline(page);
  const now = Date.now();
  await createByDrag(page, 0, now + 20 * MINUTE_MS, now + 80 * MINUTE_MS);
  await expect(bar(page, /^Hall A battery: .*Received/)).toBeAttached();
  // The status transitions animate the bar's colour; the viewport must not move (issue 5).
  const canvas = page.getByTestId('timeline-canvas');
  const viewport = async () =>
    Promise.all(
      ['data-origin-ms', 'data-ms-per-px', 'data-scroll-top'].map((name) =>
        canvas.getAttribute(name),
      ),
    );
  const before = await viewport();
  await sandboxAdmin.advanceClock(30 * MINUTE_MS);
  await expect(bar(page, /^Hall A battery: .*Executing$/)).toBeAttached();
  expect(await viewport()).toEqual(before);
  await sandboxAdmin.advanceClock(2 * HOUR_MS);
  await expect(bar(page, /^Hall A battery: .*Completed$/)).toBeAttached();
  expect(await viewport()).toEqual(before);
});

// Colours of draw.ts (lib/status-colours.ts) as the canvas reads them back.
const RECEIVED_RGB = '29,78,216';
const EXECUTING_RGB = '180,83,9';

test('a status change crossfades the bar through colours between the two statuses', async ({
  page,
}) => {
  const colours = await watchBarStartExecuting(page);
  expect(colours[0]).toBe(RECEIVED_RGB);
  expect(colours.at(-1)).toBe(EXECUTING_RGB);
  expect(colours.length).toBeGreaterThan(2);
});

test.describe('with reduced motion', () => {
  test.use({ reducedMotion: 'reduce' });

  test('a status change recolours the bar at once', async ({ page }) => {
    expect(await watchBarStartExecuting(page)).toEqual([RECEIVED_RGB, EXECUTING_RGB]);
  });
});

test('one command end to end with the keyboard only', async ({ page }) => {
  await openTimeline(page);
  const grid = page.getByRole('grid', { name: 'Command timeline' });
  for (let i = 0; i < 40 && !(await grid.evaluate((el) => el.matches(':focus'))); i++)
    await page.keyboard.press('Tab');
  await expect(grid).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(grid).toHaveAttribute('aria-activedescendant', /tl-row-2/);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'New command' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('BAT-EU-001-B');
  // The form opens with the window prefilled and the first control focused.
  await expect(dialog.getByLabel('Target battery power (W)')).toBeFocused();
  await page.keyboard.type('-2000');
  await page.keyboard.press('Enter');
  await expect(
    page.getByRole('status').filter({ hasText: /submitted for Hall B battery/ }),
  ).toBeVisible();

  // The bar comes with the history refetch after the notice; the arrow key needs it there.
  await expect(bar(page, /^Hall B battery: -2 kW, .*Received/)).toBeAttached();
  await grid.focus();
  await page.keyboard.press('ArrowRight');
  await expect(grid).toHaveAttribute('aria-activedescendant', /tl-bar-cmd_/);
  await page.keyboard.press('Enter');
  const panel = page.getByRole('complementary', { name: 'Command details' });
  await expect(panel).toContainText('-2 kW');
  for (let i = 0; i < 10; i++) {
    if (
      await panel
        .getByRole('button', { name: 'Cancel command' })
        .evaluate((el) => el.matches(':focus'))
    )
      break;
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(panel).toContainText('Cancelled by an operator');
});

test('a replace refused after the cancel offers to restore the old command', async ({ page }) => {
  await openTimeline(page);
  const now = Date.now();
  const oldId = await createByDrag(page, 0, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  // Another operator takes the target window meanwhile; this page does not know it yet.
  const other = await page.request.post('/api/device/BAT-EU-001-A/commands', {
    headers: { 'X-CSRF': '1', Origin: new URL(page.url()).origin },
    data: {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(Math.ceil((now + 5 * HOUR_MS) / MINUTE_MS) * MINUTE_MS).toISOString(),
      endTime: new Date(Math.ceil((now + 7 * HOUR_MS) / MINUTE_MS) * MINUTE_MS).toISOString(),
    },
  });
  expect(other.status()).toBe(202);

  await drag(page, 0, now + 2.5 * HOUR_MS, now + 5.5 * HOUR_MS);
  const alert = page.getByRole('alert').filter({ hasText: 'already cancelled' });
  await expect(alert).toContainText(`The old command ${oldId} is already cancelled.`);
  await expect(alert).toContainText('overlaps command');
  await alert.getByRole('button', { name: 'Restore the old command' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: /submitted for Hall A battery/ }),
  ).toBeVisible();
  await expect(bar(page, /^Hall A battery: -3 kW, .*Received/)).toBeAttached();
});
