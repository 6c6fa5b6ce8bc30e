import type { Page } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';

/*
 * The pages at the two window sizes operators use, as docs/screenshots/<page>-<width>x<height>.png
 * (stable names, linked from the README), and the layout checks that go with them: nothing wider
 * than the window, the work in view.
 */

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;

const shot = (page: Page, name: string) =>
  page.screenshot({
    path: `docs/screenshots/${name}-${page.viewportSize()?.width}x${page.viewportSize()?.height}.png`,
  });

/** True when nothing on the page is wider than the window (no sideways scrolling). */
// String expressions: this file is typed for Node; they run in the page.
const fitsWidth = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');

/** Whether the element is entirely inside the window as it is scrolled now. */
async function inView(page: Page, name: string): Promise<boolean> {
  const box = await page.getByRole('button', { name, exact: true }).boundingBox();
  const size = page.viewportSize();
  return Boolean(box && size && box.y >= 0 && box.y + box.height <= size.height);
}

for (const viewport of VIEWPORTS) {
  test.describe(`${viewport.width}x${viewport.height}`, () => {
    test.use({ viewport });

    test('sign-in, sites and device pages', async ({ page }) => {
      await page.goto('/sign-in');
      await expect(page.getByRole('heading', { name: 'Sign in to powerdeck' })).toBeVisible();
      expect(await inView(page, 'Sign in')).toBe(true);
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, 'sign-in');

      await signIn(page);
      await bindSite(page, 'PLANT-EU-001');
      await bindSite(page, 'PLANT-EU-100');
      await page.getByRole('heading', { name: 'Sites', level: 1 }).scrollIntoViewIfNeeded();
      expect(await fitsWidth(page)).toBe(true);
      await page.mouse.move(0, 0);
      await shot(page, 'sites');

      await page.getByRole('link', { name: 'BAT-EU-001-A', exact: true }).click();
      await expect(page.getByRole('heading', { name: /BAT-EU-001-A/ })).toBeVisible();
      await page.getByLabel('Target battery power (W)', { exact: true }).fill('-3000');
      await page.getByLabel('Charge cut-off SoC (%)', { exact: true }).fill('90');
      await page.getByRole('button', { name: 'Submit command' }).click();
      await expect(page.getByRole('row').filter({ hasText: 'received' })).toBeVisible();
      await page.evaluate('window.scrollTo(0, 0)');
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, 'device');
    });
  });
}

test.describe('1280x720', () => {
  test.use({ viewport: { width: 1280, height: 720 } });

  test("the timeline's new-command dialog fits the window with Submit in view", async ({
    page,
  }) => {
    await signIn(page);
    await bindSite(page, 'PLANT-EU-001');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Timeline' })
      .click();
    const grid = page.getByRole('grid', { name: 'Command timeline' });
    await expect(page.getByRole('rowheader', { name: /BAT-EU-001-A/ })).toBeAttached();
    await grid.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New command' });
    await expect(dialog).toBeVisible();
    const box = await dialog.boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= 720).toBe(true);
    expect(await inView(page, 'Submit command')).toBe(true);
    expect(await inView(page, 'Close')).toBe(true);
    await page.screenshot({ path: 'docs/screenshots/timeline-new-command-1280x720.png' });
  });
});
