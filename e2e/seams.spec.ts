import { test, expect, signIn, bindSite, DEMO_EU } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';

/*
 * Seams of the shared shell and the sites page, as a new operator met them: where focus goes after
 * an action, errors that outlive their attempt, a 60-device site, and an upstream outage under
 * cached data. Each test failed on the main branch before this work.
 */

test('a refused sign-in moves focus to the refusal', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Client ID').fill(DEMO_EU.clientId);
  await page.getByLabel('Client secret').fill('not-the-secret');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('client ID or secret');
  await expect(alert).toBeFocused();
});

test('a bind refusal belongs to its attempt: it goes when the site ID changes or a new attempt starts', async ({
  page,
}) => {
  await signIn(page);
  const siteId = page.getByLabel('Site ID');
  await siteId.fill('PLANT-NOPE');
  await page.getByRole('button', { name: 'Bind', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('PLANT-NOPE');

  await siteId.press('End');
  await siteId.press('Backspace');
  await expect(siteId).toHaveValue('PLANT-NOP');
  await expect(page.getByRole('alert')).toHaveCount(0);

  await siteId.fill('PLANT-NOPE');
  await page.getByRole('button', { name: 'Bind', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('PLANT-NOPE');
  await siteId.fill('');
  await page.getByRole('button', { name: 'Bind', exact: true }).click();
  // The empty field's own problem, and no refusal of the attempt before it.
  await expect(page.getByText('Enter the site ID')).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('focus follows the outcome: a bind refusal, the new site, and dialogs give it back on Escape', async ({
  page,
}) => {
  await signIn(page);
  await page.getByLabel('Site ID').fill('PLANT-NOPE');
  await page.getByRole('button', { name: 'Bind', exact: true }).click();
  await expect(page.getByRole('alert')).toBeFocused();

  await page.getByLabel('Site ID').fill('PLANT-EU-001');
  await page.getByRole('button', { name: 'Bind', exact: true }).click();
  await expect(page.getByRole('heading', { name: /PLANT-EU-001/ })).toBeFocused();

  const site = page.getByRole('region', { name: /PLANT-EU-001/ });
  const unbind = site.getByRole('button', { name: 'Unbind' });
  await unbind.click();
  await expect(page.getByRole('alertdialog', { name: /Unbind/ })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(unbind).toBeFocused();

  await site.getByRole('link', { name: 'BAT-EU-001-A', exact: true }).click();
  const calendarButton = page.getByRole('button', { name: 'Choose date Start' });
  await calendarButton.click();
  await expect(page.getByRole('dialog', { name: /Choose date/ })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: /Choose date/ })).toHaveCount(0);
  await expect(calendarButton).toBeFocused();
});

test('a 60-device site folds, filters its devices with true counts, and keeps its fold for the session', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await bindSite(page, 'PLANT-EU-100');
  const site = page.getByRole('region', { name: /PLANT-EU-100/ });
  // Folded: the page is a page, not 3,250 px of one site.
  // A string expression: this file is typed for Node, the expression runs in the page.
  expect(await page.evaluate<number>('document.documentElement.scrollHeight')).toBeLessThan(1400);

  await site.getByRole('button', { name: 'Show 60 devices' }).click();
  await expect(site.getByRole('button', { name: 'Hide devices' })).toHaveAttribute(
    'aria-expanded',
    'true',
  );
  await expect(site.getByRole('status')).toHaveText('All 60 devices');
  await expect(site.getByRole('link', { name: /^BAT-EU-100-\d\d$/ })).toHaveCount(60);

  await site.getByRole('combobox', { name: 'Filter devices' }).fill('-42');
  await page.keyboard.press('Escape');
  await expect(site.getByRole('status')).toHaveText('Showing 1 of 60 devices');
  await expect(site.getByRole('link', { name: /^BAT-EU-100-\d\d$/ })).toHaveText(['BAT-EU-100-42']);

  await page.reload();
  await expect(
    page
      .getByRole('region', { name: /PLANT-EU-100/ })
      .getByRole('button', { name: 'Hide devices' }),
  ).toBeVisible();
});

test('an outage under cached sites says so at once, keeps the list, and clears when the upstream answers', async ({
  page,
}) => {
  // The page's clock is Playwright's, so the cached list can grow old without waiting a minute.
  await page.clock.install();
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  await page
    .getByRole('region', { name: /PLANT-EU-001/ })
    .getByRole('link', { name: 'BAT-EU-001-A', exact: true })
    .click();
  await expect(page.getByRole('heading', { name: /BAT-EU-001-A/ })).toBeVisible();

  await sandboxAdmin.setFaults({ errorRate: 1, errorStatus: 503 });
  try {
    // The site list is now older than its 60 s of freshness, so the Sites page refetches it.
    await page.clock.fastForward('01:05');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Sites' })
      .click();
    await expect(page.getByRole('heading', { name: 'Sites', level: 1 })).toBeVisible();
    const notice = page.getByRole('status').filter({ hasText: 'Could not refresh the site list' });
    await expect(notice).toBeVisible({ timeout: 3_000 });
    await expect(notice).toContainText("the vendor's service is not answering");
    // The browser runs on UTC here, so the operator's clock is UTC.
    await expect(notice).toContainText(/as of UTC \d{4}-\d\d-\d\d \d\d:\d\d\./);
    await expect(page.getByRole('region', { name: /PLANT-EU-001/ })).toBeVisible();
    // Still there once the retries gave up: the cached list, not an error in its place.
    await expect(notice).toContainText('tries again every 15 seconds', { timeout: 15_000 });
    await expect(page.getByRole('region', { name: /PLANT-EU-001/ })).toBeVisible();
  } finally {
    await sandboxAdmin.setFaults({});
  }
  // The powerdeck server waits a few seconds, on its own clock, before calling a failing upstream
  // again; the list refreshes by itself on the page's next try after that. The page tries every
  // 15 seconds on its clock, moved on to each next try rather than waited out, until one is
  // answered (the notice also hides while a try is under way, so its absence alone proves nothing).
  let refreshed = false;
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.request().method() === 'GET' && url.pathname === '/api/sites' && response.ok())
      refreshed = true;
  });
  await expect
    .poll(
      async () => {
        if (!refreshed) await page.clock.fastForward('00:15');
        return refreshed;
      },
      { timeout: 40_000 },
    )
    .toBe(true);
  await expect(
    page.getByRole('status').filter({ hasText: 'Could not refresh the site list' }),
  ).toHaveCount(0);
  await expect(page.getByRole('region', { name: /PLANT-EU-001/ })).toBeVisible();
});
