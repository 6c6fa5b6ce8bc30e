import type { Page } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { drag, pointOf } from './support/timeline.ts';

/*
 * The product's rule for toasts: they say what changed and never cover a control. While a toast
 * shows, after a submission on a device page and after a cancel from the timeline's drawer, no
 * button, link or field the operator can see and use lies under the toasts' strip, at the window
 * sizes operators use, in light and dark.
 */

const SITE = 'PLANT-EU-001';
const DEVICE = 'BAT-EU-001-A';
const HOUR_MS = 3_600_000;

/**
 * The controls a toast covers, as the next painted frame shows them: every enabled button, link
 * and field whose visible part (its box cut by the window and by every box that clips it, such as
 * a scrolled page or drawer body) meets the toast region's box. Returns their names, for the
 * failure message.
 *
 * It measures once the next frame has been drawn: a toast that has just come is laid out at once,
 * but the strip the page gives up follows in that frame's resize observation, which runs after the
 * frame's animation callbacks and before it is painted. Measured in between (in an animation
 * callback, or right after a toast came in a task of its own), a control looks covered though no
 * frame ever showed it so.
 */
async function controlsUnderToasts(page: Page): Promise<string[]> {
  // Page-side code as text: this file is typed for Node, without the DOM's names.
  return page.evaluate<string[]>(`(async () => {
    await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));
    const cut = (a, b) => ({
      left: Math.max(a.left, b.left),
      top: Math.max(a.top, b.top),
      right: Math.min(a.right, b.right),
      bottom: Math.min(a.bottom, b.bottom),
    });
    const empty = (box) => box.right - box.left < 1 || box.bottom - box.top < 1;
    const region = document.querySelector('.toast-region');
    if (!region) throw new Error('no toast shows');
    const toastBox = region.getBoundingClientRect();
    const controls = document.querySelectorAll(
      'button, a[href], input, select, textarea, [role="button"], [role="gridcell"][tabindex]',
    );
    const covered = [];
    for (const control of controls) {
      if (region.contains(control)) continue;
      if (control.matches(':disabled, [aria-disabled="true"]')) continue;
      const style = getComputedStyle(control);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      const viewport = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
      let visible = cut(control.getBoundingClientRect(), viewport);
      for (let box = control.parentElement; box && !empty(visible); box = box.parentElement) {
        const { overflowX, overflowY } = getComputedStyle(box);
        if (overflowX !== 'visible' || overflowY !== 'visible')
          visible = cut(visible, box.getBoundingClientRect());
      }
      if (empty(visible) || empty(cut(visible, toastBox))) continue;
      const name = control.getAttribute('aria-label') ?? control.textContent ?? '';
      covered.push(control.tagName.toLowerCase() + ' "' + name.trim().slice(0, 40) + '"');
    }
    return covered;
  })()`);
}

/** Asserts no control lies under the toasts, also with the page scrolled to its end. */
async function expectNoControlUnderToasts(page: Page) {
  await expect(page.locator('.toast-region')).toBeVisible();
  expect(await controlsUnderToasts(page)).toEqual([]);
}

for (const { width, height, colorScheme } of [
  { width: 1280, height: 720, colorScheme: 'light' },
  { width: 1440, height: 900, colorScheme: 'dark' },
  { width: 1280, height: 720, colorScheme: 'dark' },
  { width: 1440, height: 900, colorScheme: 'light' },
] as const) {
  test.describe(`${width}x${height}, ${colorScheme}`, () => {
    test.use({ viewport: { width, height }, colorScheme });

    test('after submissions and a cancel on a device page, the toasts cover no control at any scroll position', async ({
      page,
    }) => {
      await signIn(page);
      await bindSite(page, SITE);
      await page.goto(`/sites/${SITE}/devices/${DEVICE}`);
      const power = page.getByLabel('Target battery power (W)', { exact: true });
      const submitted = page.getByRole('status').filter({ hasText: 'Command submitted' });
      await power.fill('-3000');
      await page.getByRole('button', { name: 'Submit command' }).click();
      await expect(submitted).toBeFocused();
      await expect(page.getByRole('button', { name: 'Undo', exact: true })).toBeVisible();
      await expectNoControlUnderToasts(page);

      // A second toast beside the first; the page scrolled to its end, where the newest
      // commands' rows and their Cancel buttons are.
      await power.fill('-2000');
      await page.getByRole('button', { name: 'Submit command' }).click();
      await expect(page.getByRole('button', { name: 'Undo', exact: true })).toHaveCount(2);
      await expectNoControlUnderToasts(page);
      await page.getByRole('heading', { name: 'Commands' }).scrollIntoViewIfNeeded();
      await page.keyboard.press('End');
      await expectNoControlUnderToasts(page);
      const received = page
        .getByRole('row')
        .filter({ hasText: /received/i })
        .first();
      const newestId = (await received.textContent())?.match(/cmd_[\w-]+/)?.[0] ?? '';
      const newest = page.getByRole('row').filter({ hasText: newestId });
      await newest.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel command' }).click();
      await expect(newest).toContainText('Cancelled by an operator');
      // The row may say so first (the read model's push can come before the cancel's own answer):
      // measure with the cancel's toast in, not while it is still to come.
      await expect(page.locator('.toast-region').getByText(/ cancelled$/)).toBeVisible();
      await expectNoControlUnderToasts(page);
      await page.screenshot({ path: `/tmp/pw-toasts/device-${width}-${colorScheme}.png` });
    });

    test('after a cancel from the timeline drawer, the toast covers none of its buttons nor the grid', async ({
      page,
    }) => {
      await signIn(page);
      await bindSite(page, SITE);
      await page.getByRole('link', { name: 'Timeline' }).click();
      await expect(page.getByRole('rowheader', { name: /BAT-EU-001-A/ })).toBeAttached();
      const now = Date.now();
      await drag(page, 2, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
      const form = page.getByRole('dialog', { name: 'New command' });
      await form.getByLabel('Target battery power (W)').fill('-3000');
      await form.getByRole('button', { name: 'Submit command' }).click();
      await expect(page.getByRole('status').filter({ hasText: /submitted/ })).toBeVisible();
      await expectNoControlUnderToasts(page);

      const point = await pointOf(page, 2, now + 2.5 * HOUR_MS);
      await page.mouse.click(point.x, point.y);
      const drawer = page.getByRole('dialog', { name: 'Command details' });
      // The submission's toast still shows: the drawer's actions end above it.
      await expect(drawer.getByRole('button', { name: 'Cancel command' })).toBeVisible();
      await expectNoControlUnderToasts(page);
      await drawer.getByRole('button', { name: 'Cancel command' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel command' }).click();
      await expect(drawer).toContainText('Cancelled by an operator');
      await expect(page.getByRole('button', { name: 'Undo', exact: true }).first()).toBeVisible();
      await expectNoControlUnderToasts(page);
      await drawer.getByRole('button', { name: 'Close details' }).click({ trial: true });
      await page.screenshot({ path: `/tmp/pw-toasts/timeline-${width}-${colorScheme}.png` });
    });
  });
}
