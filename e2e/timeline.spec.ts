import type { Page } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';
import {
  AXIS_HEIGHT_PX,
  DEVICE_ROW_PX,
  LABEL_WIDTH_PX,
  SITE_ROW_PX,
  drag,
  pointOf,
} from './support/timeline.ts';
import { expectNoSeriousAxeViolations, seriousViolations } from './support/axe.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** Opens the timeline with PLANT-EU-001 bound: row 1 is BAT-EU-001-A, row 2 -B, row 3 -C. */
async function openTimeline(page: Page): Promise<void> {
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  await page.getByRole('link', { name: 'Timeline' }).click();
  await expect(page.getByRole('heading', { name: 'Timeline' })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: /BAT-EU-001-A/ })).toBeAttached();
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
  await expect(bar(page, /^Hall A battery: 3 kW charge, .*Received/)).toBeAttached();

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

  await expectNoSeriousAxeViolations(page);
});

test('replace a received command by dragging it', async ({ page }) => {
  await openTimeline(page);
  const now = Date.now();
  const oldId = await createByDrag(page, 1, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  const oldBar = bar(page, /^Hall B battery: 3 kW charge, .*Received/);
  await expect(oldBar).toBeAttached();
  const before = (await oldBar.textContent()) ?? '';

  await drag(page, 1, now + 2.5 * HOUR_MS, now + 5 * HOUR_MS);
  await expect(
    page.getByRole('status').filter({ hasText: `Command ${oldId} replaced by` }),
  ).toBeVisible();
  const moved = bar(page, /^Hall B battery: 3 kW charge, .*Received/);
  await expect(moved).toBeAttached();
  await expect(moved).not.toHaveText(before);
});

test('cancel from the detail panel', async ({ page }) => {
  await openTimeline(page);
  const now = Date.now();
  const id = await createByDrag(page, 2, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  await expect(bar(page, /^Office battery: 3 kW charge, .*Received/)).toBeAttached();
  const point = await pointOf(page, 2, now + 2.5 * HOUR_MS);
  await page.mouse.click(point.x, point.y);
  const panel = page.getByRole('dialog', { name: 'Command details' });
  await expect(panel).toContainText(id);
  await panel.getByRole('button', { name: 'Cancel command' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel command' }).click();
  await expect(panel).toContainText('Cancelled by an operator');
  await expect(
    bar(page, /^Office battery: 3 kW charge, .*Cancelled \(by operator\)$/),
  ).toBeAttached();
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
  // The status transitions animate the bar's colour in place: the view neither pans, zooms nor
  // scrolls to the changed bar.
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
  await expect(bar(page, /^Hall B battery: 2 kW charge, .*Received/)).toBeAttached();
  await grid.focus();
  await page.keyboard.press('ArrowRight');
  await expect(grid).toHaveAttribute('aria-activedescendant', /tl-bar-cmd_/);
  await page.keyboard.press('Enter');
  const panel = page.getByRole('dialog', { name: 'Command details' });
  await expect(panel).toContainText('2 kW charge');
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

// The page now learns of the other operator's command at once (pushed by the read model), so the
// timeline refuses the drag itself before anything is sent; the refusal after the cancel this
// test needs can only come from a command the page cannot see yet, which it cannot arrange.
test.fixme('a replace refused after the cancel offers to restore the old command', async ({
  page,
}) => {
  await openTimeline(page);
  const now = Date.now();
  const oldId = await createByDrag(page, 0, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  // Each step below starts with the device's two calls to the vendor of a new minute.
  await sandboxAdmin.advanceClock(MINUTE_MS);
  // Another operator takes the target window meanwhile; this page does not know it yet.
  const other = await page.request.post('/api/devices/BAT-EU-001-A/commands', {
    headers: { 'X-CSRF': '1', Origin: new URL(page.url()).origin },
    data: {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(Math.ceil((now + 5 * HOUR_MS) / MINUTE_MS) * MINUTE_MS).toISOString(),
      endTime: new Date(Math.ceil((now + 7 * HOUR_MS) / MINUTE_MS) * MINUTE_MS).toISOString(),
    },
  });
  expect(other.status()).toBe(202);

  await sandboxAdmin.advanceClock(MINUTE_MS);

  await drag(page, 0, now + 2.5 * HOUR_MS, now + 5.5 * HOUR_MS);
  const alert = page.getByRole('alert').filter({ hasText: 'already cancelled' });
  await expect(alert).toContainText(`The old command ${oldId} is already cancelled.`);
  await expect(alert).toContainText('overlaps command');
  await sandboxAdmin.advanceClock(MINUTE_MS);
  await alert.getByRole('button', { name: 'Restore the old command' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: /submitted for Hall A battery/ }),
  ).toBeVisible();
  await expect(bar(page, /^Hall A battery: 3 kW charge, .*Received/)).toBeAttached();
});

/** The grid's box on the page. */
async function gridBox(page: Page) {
  const box = await page.getByRole('grid', { name: 'Command timeline' }).boundingBox();
  if (!box) throw new Error('timeline grid not visible');
  return box;
}

/** Where "now" sits across the time area, as a fraction of its width (0 left edge, 1 right). */
async function nowFraction(page: Page): Promise<number> {
  const canvas = page.getByTestId('timeline-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('timeline canvas not visible');
  const originMs = Number(await canvas.getAttribute('data-origin-ms'));
  const msPerPx = Number(await canvas.getAttribute('data-ms-per-px'));
  return (Date.now() - originMs) / msPerPx / (box.width - LABEL_WIDTH_PX);
}

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
]) {
  test.describe(`${viewport.width}x${viewport.height}`, () => {
    test.use({ viewport });

    test('the grid fills the window below the toolbar, full width, with no page scroll', async ({
      page,
    }) => {
      await openTimeline(page);
      const box = await gridBox(page);
      const toolbar = await page.getByRole('toolbar', { name: 'Timeline view' }).boundingBox();
      expect(toolbar).toBeTruthy();
      // Only the page gutters beside it (1.5rem each) and a small gap under it.
      expect(box.width).toBeGreaterThanOrEqual(viewport.width - 2 * 24 - 2);
      expect(box.y + box.height).toBeGreaterThan(viewport.height - 24);
      expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
      expect(box.y).toBeGreaterThan((toolbar?.y ?? 0) + (toolbar?.height ?? 0));
      expect(
        await page.evaluate<boolean>(
          'document.documentElement.scrollHeight <= window.innerHeight + 1',
        ),
      ).toBe(true);
    });
  });
}

test('the presets show now a quarter from the left, also Day after 30 days', async ({ page }) => {
  await openTimeline(page);
  // The first view is the Day preset.
  expect(await nowFraction(page)).toBeCloseTo(0.25, 1);
  const toolbar = page.getByRole('toolbar', { name: 'Timeline view' });
  for (const preset of ['30 days', 'Day', '6 h', 'Week', '6 h']) {
    await toolbar.getByRole('button', { name: preset, exact: true }).click();
    expect(await nowFraction(page), preset).toBeCloseTo(0.25, 1);
  }
  const canvas = page.getByTestId('timeline-canvas');
  const msPerPx = Number(await canvas.getAttribute('data-ms-per-px'));
  const box = await canvas.boundingBox();
  expect(((box?.width ?? 0) - LABEL_WIDTH_PX) * msPerPx).toBe(6 * HOUR_MS);
});

test('Ctrl+wheel zooms around the pointer: the instant under it stays under it', async ({
  page,
}) => {
  await openTimeline(page);
  const canvas = page.getByTestId('timeline-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('timeline canvas not visible');
  const x = box.x + LABEL_WIDTH_PX + 0.7 * (box.width - LABEL_WIDTH_PX);
  const instantAtPointer = async () =>
    Number(await canvas.getAttribute('data-origin-ms')) +
    (x - box.x - LABEL_WIDTH_PX) * Number(await canvas.getAttribute('data-ms-per-px'));
  const before = await instantAtPointer();
  const msPerPxBefore = Number(await canvas.getAttribute('data-ms-per-px'));
  await page.mouse.move(x, box.y + AXIS_HEIGHT_PX + SITE_ROW_PX + DEVICE_ROW_PX / 2);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -300);
  await page.keyboard.up('Control');
  await expect
    .poll(async () => Number(await canvas.getAttribute('data-ms-per-px')))
    .toBeLessThan(msPerPxBefore);
  expect(Math.abs((await instantAtPointer()) - before)).toBeLessThan(msPerPxBefore);
});

test('details open in a drawer over the grid that leaves the grid as it is; Escape gives focus back to the bar', async ({
  page,
}) => {
  await openTimeline(page);
  const now = Date.now();
  const id = await createByDrag(page, 2, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  await expect(bar(page, /^Office battery: 3 kW charge, .*Received/)).toBeAttached();
  const before = await gridBox(page);
  const point = await pointOf(page, 2, now + 2.5 * HOUR_MS);
  await page.mouse.click(point.x, point.y);
  const drawer = page.getByRole('dialog', { name: 'Command details' });
  await expect(drawer).toContainText(id);
  expect(await gridBox(page)).toEqual(before);
  // Its actions are in view and nothing covers them: the bar's tooltip stays under the drawer.
  const cancel = drawer.getByRole('button', { name: 'Cancel command' });
  await cancel.click({ trial: true });
  const close = drawer.getByRole('button', { name: 'Close details' });
  await close.click({ trial: true });

  await page.keyboard.press('Escape');
  await expect(drawer).toHaveCount(0);
  const grid = page.getByRole('grid', { name: 'Command timeline' });
  await expect(grid).toBeFocused();
  await expect(grid).toHaveAttribute('aria-activedescendant', `tl-bar-${id}`);
  expect(await gridBox(page)).toEqual(before);
});

test.describe('in a browser on New York time', () => {
  test.use({ timezoneId: 'America/New_York' });

  test('times in the details are the site clock in 24-hour form', async ({ page }) => {
    await openTimeline(page);
    // Half past an hour, so the 5-minute snap cannot change the hour shown.
    const startMs = Math.ceil((Date.now() + 2 * HOUR_MS) / HOUR_MS) * HOUR_MS + 30 * MINUTE_MS;
    await createByDrag(page, 2, startMs, startMs + HOUR_MS);
    const point = await pointOf(page, 2, startMs + HOUR_MS / 2);
    await page.mouse.click(point.x, point.y);
    const drawer = page.getByRole('dialog', { name: 'Command details' });
    const berlinHour = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hour: '2-digit',
      hourCycle: 'h23',
    }).format(startMs);
    await expect(drawer).toContainText(
      new RegExp(`${berlinHour}:\\d{2}–(\\w{3} \\d{1,2} \\w{3} )?\\d{2}:\\d{2} Europe/Berlin`),
    );
    await expect(drawer).not.toContainText(/\b(AM|PM)\b/);
    await expect(drawer).not.toContainText(/\d{4}-\d{2}-\d{2}T/);
  });
});

test('a refused drag says why beside the pointer without moving the grid, and the words go with the drag', async ({
  page,
}) => {
  await openTimeline(page);
  const now = Date.now();
  const toolbar = page.getByRole('toolbar', { name: 'Timeline view' });
  const toolbarBefore = await toolbar.boundingBox();
  await createByDrag(page, 0, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  // The "submitted" notice sits in its own line: the toolbar keeps its place and size.
  expect(await toolbar.boundingBox()).toEqual(toolbarBefore);
  await expect(bar(page, /^Hall A battery: 3 kW charge, .*Received/)).toBeAttached();
  const before = await gridBox(page);

  await drag(page, 0, now + 1 * HOUR_MS, now + 2.5 * HOUR_MS, false);
  const alert = page.getByRole('alert').filter({ hasText: 'Refused' });
  await expect(alert).toContainText(/overlaps command cmd_/);
  expect(await gridBox(page)).toEqual(before);
  // Beside the pointer (the drag ended at 2.5 h).
  const pointer = await pointOf(page, 0, now + 2.5 * HOUR_MS);
  const box = await alert.boundingBox();
  expect(box).toBeTruthy();
  const dx = Math.max(0, (box?.x ?? 0) - pointer.x, pointer.x - (box?.x ?? 0) - (box?.width ?? 0));
  const dy = Math.max(0, (box?.y ?? 0) - pointer.y, pointer.y - (box?.y ?? 0) - (box?.height ?? 0));
  expect(Math.hypot(dx, dy)).toBeLessThan(60);

  await page.mouse.up();
  await expect(page.getByText(/^Refused/)).toHaveCount(0);
  expect(await gridBox(page)).toEqual(before);
});

/** The time header's labels as the canvas drew them (lib/draw.ts), x from the time area's left. */
async function axisLabels(page: Page) {
  const raw = (await page.getByTestId('timeline-canvas').getAttribute('data-axis-labels')) ?? '';
  return raw
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [tier = '', x = '', width = '', ...text] = line.split('|');
      return { tier, xPx: Number(x), widthPx: Number(width), text: text.join('|') };
    });
}

test('the two-tier time header never overlaps its labels, at every preset and zoom', async ({
  page,
}) => {
  await openTimeline(page);
  const canvas = page.getByTestId('timeline-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('timeline canvas not visible');
  const timeWidthPx = box.width - LABEL_WIDTH_PX;
  const toolbar = page.getByRole('toolbar', { name: 'Timeline view' });
  const check = async (what: string) => {
    const labels = await axisLabels(page);
    for (const tier of ['upper', 'lower']) {
      const row = labels.filter((l) => l.tier === tier).sort((a, b) => a.xPx - b.xPx);
      expect(row.length, `${what}: ${tier} tier`).toBeGreaterThan(0);
      row.forEach((label, i) => {
        expect(label.xPx, `${what}: ${label.text}`).toBeGreaterThanOrEqual(0);
        expect(label.xPx + label.widthPx, `${what}: ${label.text}`).toBeLessThanOrEqual(
          timeWidthPx + 1,
        );
        const next = row[i + 1];
        if (next)
          expect(label.xPx + label.widthPx, `${what}: ${label.text} / ${next.text}`).toBeLessThan(
            next.xPx,
          );
      });
    }
    return labels;
  };
  for (const preset of ['6 h', 'Day']) {
    await toolbar.getByRole('button', { name: preset, exact: true }).click();
    const labels = await check(preset);
    // Hours on the 24-hour clock below, the day and date above.
    for (const label of labels.filter((l) => l.tier === 'lower'))
      expect(label.text).toMatch(/^\d{2}:\d{2}$/);
    expect(labels.filter((l) => l.tier === 'upper')[0]?.text).toMatch(/^\w{3} \d{1,2} \w{3}$/);
  }
  for (const preset of ['Week', '30 days']) {
    await toolbar.getByRole('button', { name: preset, exact: true }).click();
    await check(preset);
  }
  // Free zoom between the presets, around the pointer.
  await page.mouse.move(box.x + LABEL_WIDTH_PX + timeWidthPx / 2, box.y + 10);
  for (let i = 0; i < 6; i++) {
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -240);
    await page.keyboard.up('Control');
    await check(`zoom in ${i + 1}`);
  }
});

/** `HH:mm` of `ms` on the Berlin clock, the demo sites' zone. */
const berlinTime = (ms: number) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Berlin',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(ms);

/** A half past the hour at least `aheadMs` from now: the 5-minute snap cannot move it. */
const halfPastAfter = (aheadMs: number) =>
  Math.ceil((Date.now() + aheadMs) / HOUR_MS) * HOUR_MS + 30 * MINUTE_MS;

/**
 * The drag readout of a window from `startMs` to `endMs`: both ends on the Berlin clock, each
 * with its day in front when the window crosses midnight (the test's times follow the clock).
 */
const readoutOf = (startMs: number, endMs: number, length: string) =>
  new RegExp(
    `^(\\S+ \\S+ \\S+ )?${berlinTime(startMs)}–(\\S+ \\S+ \\S+ )?${berlinTime(endMs)} · ${length}$`,
  );

test('a drag reads out its start, end and length on the site clock as it goes', async ({
  page,
}) => {
  await openTimeline(page);
  const startMs = halfPastAfter(2 * HOUR_MS);
  await drag(page, 1, startMs, startMs + 90 * MINUTE_MS, false);
  const readout = page.getByTestId('timeline-readout');
  await expect(readout).toHaveText(readoutOf(startMs, startMs + 90 * MINUTE_MS, '1 h 30 min'));
  const further = await pointOf(page, 1, startMs + 2 * HOUR_MS);
  await page.mouse.move(further.x, further.y, { steps: 4 });
  await expect(readout).toHaveText(readoutOf(startMs, startMs + 2 * HOUR_MS, '2 h'));
  await page.mouse.up();
  await expect(readout).toHaveCount(0);
  await expect(page.getByRole('dialog', { name: 'New command' })).toBeVisible();
});

test('copy a window and paste it on another device: the same control and length, checked for overlap', async ({
  page,
}) => {
  await openTimeline(page);
  const now = Date.now();
  await createByDrag(page, 0, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  await expect(bar(page, /^Hall A battery: 3 kW charge, .*Received/)).toBeAttached();
  const grid = page.getByRole('grid', { name: 'Command timeline' });
  await grid.focus();
  // The first device row has the keyboard focus; the arrow focuses its window.
  await page.keyboard.press('ArrowRight');
  await expect(grid).toHaveAttribute('aria-activedescendant', /tl-bar-cmd_/);
  await page.keyboard.press('Control+c');
  await expect(
    page.getByRole('status').filter({ hasText: /^Copied 3 kW charge for 1 h from Hall A battery/ }),
  ).toBeVisible();

  // Pasted under the pointer, on Hall B half past an hour later on.
  const startMs = halfPastAfter(4 * HOUR_MS);
  const spot = await pointOf(page, 1, startMs);
  await page.mouse.move(spot.x, spot.y);
  await page.keyboard.press('Control+v');
  await expect(
    page.getByRole('status').filter({ hasText: /^1 copy sent: cmd_\S+ for Hall B battery\./ }),
  ).toBeVisible();
  const pasted = bar(page, /^Hall B battery: 3 kW charge, .*Received/);
  await expect(pasted).toBeAttached();
  // Start and end on the site's clock; a window over midnight also names each end's day.
  await expect(pasted).toContainText(berlinTime(startMs));
  await expect(pasted).toContainText(`${berlinTime(startMs + HOUR_MS)} Europe/Berlin`);

  // The same paste again overlaps the copy: refused with the reason, nothing sent.
  await page.keyboard.press('Control+v');
  await expect(
    page.getByRole('alert').filter({ hasText: /^Refused: overlaps command cmd_/ }),
  ).toBeVisible();
  await expect(page.getByRole('gridcell', { name: /^Hall B battery: / })).toHaveCount(1);
});

test("a window's menu duplicates it to another device and the next day, every copy checked before sending", async ({
  page,
}) => {
  await openTimeline(page);
  const now = Date.now();
  // Office battery already holds the same window: its same-day copy will be refused.
  await createByDrag(page, 2, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  await createByDrag(page, 0, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  await expect(bar(page, /^Hall A battery: 3 kW charge, .*Received/)).toBeAttached();
  await expect(bar(page, /^Office battery: 3 kW charge, .*Received/)).toBeAttached();

  const point = await pointOf(page, 0, now + 2.5 * HOUR_MS);
  await page.mouse.click(point.x, point.y, { button: 'right' });
  const menu = page.getByRole('menu');
  await expect(menu.getByRole('menuitem')).toHaveText([
    'Copy window (Ctrl+C)',
    'Replace…',
    'Duplicate to devices or days…',
    'Cancel command…',
    'Open history',
  ]);
  await expect(menu.getByRole('menuitem').first()).toBeFocused();
  expect(await seriousViolations(page)).toEqual([]);
  await menu.getByRole('menuitem', { name: 'Duplicate to devices or days…' }).click();

  const dialog = page.getByRole('dialog', { name: /^Duplicate command cmd_/ });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('checkbox', { name: /^Office battery/ }).check();
  await dialog.getByRole('checkbox', { name: 'Same day (other devices)' }).check();
  const copies = dialog.getByRole('list', { name: /^Copies/ }).getByRole('listitem');
  await expect(copies).toHaveCount(3);
  await expect(copies.filter({ hasText: 'Hall A battery, +1 day' })).toContainText('can be sent');
  await expect(copies.filter({ hasText: 'Office battery, +1 day' })).toContainText('can be sent');
  await expect(copies.filter({ hasText: 'Office battery, same day' })).toContainText(
    /Refused: overlaps command cmd_\S+ \(received, /,
  );
  expect(await seriousViolations(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Send 2 copies' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(
    page.getByRole('status').filter({
      hasText:
        /^2 copies sent: cmd_\S+ for Hall A battery, \+1 day, cmd_\S+ for Office battery, \+1 day\. Not sent: Office battery, same day: Refused: overlaps/,
    }),
  ).toBeVisible();
});

test("cancel from a window's menu button, then hide cancelled windows, kept after a reload", async ({
  page,
}) => {
  await openTimeline(page);
  const now = Date.now();
  const id = await createByDrag(page, 2, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  await expect(bar(page, /^Office battery: 3 kW charge, .*Received/)).toBeAttached();
  const point = await pointOf(page, 2, now + 2.5 * HOUR_MS);
  await page.mouse.move(point.x, point.y);
  const button = page.getByRole('button', { name: `Actions for command ${id} on Office battery` });
  await button.click();
  await page.getByRole('menuitem', { name: 'Cancel command…' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Cancel this command?' });
  await expect(confirm).toContainText(id);
  await confirm.getByRole('button', { name: 'Cancel command' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: `Command ${id} cancelled.` }),
  ).toBeVisible();
  const cancelled = bar(page, /^Office battery: 3 kW charge, .*Cancelled \(by operator\)$/);
  await expect(cancelled).toBeAttached();

  await page.getByRole('checkbox', { name: 'Show cancelled' }).uncheck();
  await expect(cancelled).toHaveCount(0);
  await expect(page).toHaveURL(/[?&]cancelled=hide/);
  await page.reload();
  await expect(page.getByRole('rowheader', { name: /BAT-EU-001-C/ })).toBeAttached();
  await expect(page.getByRole('checkbox', { name: 'Show cancelled' })).not.toBeChecked();
  await expect(page.getByRole('gridcell', { name: /^Office battery: / })).toHaveCount(0);
});

test('the zoom, position and filters survive a reload, so a link shares the view', async ({
  page,
}) => {
  await openTimeline(page);
  const toolbar = page.getByRole('toolbar', { name: 'Timeline view' });
  await toolbar.getByRole('button', { name: '6 h', exact: true }).click();
  await toolbar.getByRole('button', { name: 'Later' }).click();
  await page.getByRole('checkbox', { name: 'Show times in UTC' }).check();
  await page.getByRole('searchbox', { name: 'Filter devices' }).fill('Hall');
  await page.getByLabel('Snap to').selectOption({ label: '15 min' });
  await expect(page).toHaveURL(/span=6h/);
  await expect(page).toHaveURL(/[?&]q=Hall/);
  const canvas = page.getByTestId('timeline-canvas');
  const view = async () => ({
    originMs: Number(await canvas.getAttribute('data-origin-ms')),
    msPerPx: Number(await canvas.getAttribute('data-ms-per-px')),
  });
  const before = await view();

  await page.reload();
  await expect(page.getByRole('rowheader', { name: /BAT-EU-001-A/ })).toBeAttached();
  await expect(page.getByRole('rowheader', { name: /BAT-EU-001-C/ })).toHaveCount(0);
  await expect(page.getByRole('checkbox', { name: 'Show times in UTC' })).toBeChecked();
  await expect(page.getByRole('searchbox', { name: 'Filter devices' })).toHaveValue('Hall');
  await expect(page.getByLabel('Snap to')).toHaveValue('15');
  const after = await view();
  expect(after.msPerPx).toBe(before.msPerPx);
  // The link keeps the left edge to the second.
  expect(Math.abs(after.originMs - before.originMs)).toBeLessThan(1000);
});
