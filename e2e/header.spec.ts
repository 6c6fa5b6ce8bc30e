import { test, expect, openAccountMenu, signInToOverview } from './support/fixtures.ts';

/**
 * The header of every signed-in page (app/routes/signed-in-layout.tsx): one line at the widths
 * operators use, so the overview's fleet picture starts as high as it can; the account's own
 * pages and sign-out in the account menu, which the keyboard opens and Escape closes.
 */

for (const width of [1280, 1440]) {
  test(`keeps to one line at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 720 });
    await signInToOverview(page);
    const header = page.getByRole('banner');
    const middles = [];
    for (const part of [
      page.getByRole('link', { name: 'powerdeck' }),
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fleet jobs' }),
      page.getByRole('button', { name: /^Search/ }),
      page.getByRole('button', { name: /^Account:/ }),
    ]) {
      const box = await part.boundingBox();
      if (!box) throw new Error('the header is not drawn');
      middles.push(box.y + box.height / 2);
    }
    // Every part on the same line: their middles within a few pixels of each other.
    expect(Math.max(...middles) - Math.min(...middles)).toBeLessThan(6);
    const headerBox = await header.boundingBox();
    expect(headerBox?.height).toBeLessThan(72);
    await page.screenshot({ path: test.info().outputPath(`header-${width}.png`) });
  });
}

test('the account menu holds the account pages and sign-out, opened and closed by keyboard', async ({
  page,
}) => {
  await signInToOverview(page);
  const button = page.getByRole('button', { name: /^Account:/ });
  await expect(button).toContainText('demo-eu');
  await expect(button).toHaveAttribute('aria-expanded', 'false');
  await button.focus();
  await page.keyboard.press('Enter');
  const menu = page.locator('#account-menu');
  await expect(menu).toBeVisible();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  await expect(menu.getByLabel('Signed in')).toContainText('demo-eu');
  await expect(menu.getByRole('navigation', { name: 'Account' }).getByRole('link')).toHaveText([
    'Tokens',
    'Webhooks',
  ]);
  await expect(menu.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('account-menu.png') });
  // The menu's content follows its button in the focus order.
  await page.keyboard.press('Tab');
  await expect(menu.getByRole('link', { name: 'Tokens' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute('aria-expanded', 'false');

  // A page chosen in it closes it.
  await (await openAccountMenu(page)).getByRole('link', { name: 'Webhooks' }).click();
  await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
  await expect(menu).toBeHidden();
  // Marked as the main navigation marks the page it is on.
  await expect(button).toHaveClass(/account-menu-here/);
});
