import { expect, test, type Browser, type Page } from '@playwright/test';
import { idpPages, type IdpPerson } from '../support/idp-pages.ts';
import { screenshotPath } from '../support/screenshots.ts';

/**
 * Company sign-in where it goes wrong (README, Sign-in for teams): a person without a powerdeck
 * role is refused on a page in the product's style and signs out of the company account from
 * it, and an administrator of a region without a vendor connection is led to register it, which
 * is checked before it is saved. The refusal page and the administrator's empty state are taken
 * at the two window sizes operators use (docs/screenshots/, linked from the README).
 */

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;

/**
 * Each viewport's picture of the page as it is now: <name>-<w>x<h>.png of docs/screenshots/
 * (e2e/support/screenshots.ts says when), taken
 * against one IdP only (the page is powerdeck's either way).
 */
async function shots(page: Page, name: string): Promise<void> {
  if (!idpPages().takesScreenshots) return;
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    expect(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'),
    ).toBe(true);
    await page.mouse.move(0, 0);
    await page.screenshot({
      path: screenshotPath(`${name}-${viewport.width}x${viewport.height}.png`),
    });
  }
}

/** A browser of its own for `login`, at powerdeck's sign-in page for `region`, sent to the IdP. */
async function startSignIn(browser: Browser, login: IdpPerson, region: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: VIEWPORTS[0] })).newPage();
  await page.goto('/sign-in');
  await page.getByLabel('Region').selectOption(region);
  await page.getByRole('link', { name: 'Sign in with your company account' }).click();
  await idpPages().signIn(page, login);
  return page;
}

test('someone without a role is refused in the product’s style and can sign out of the company account', async ({
  browser,
}) => {
  const page = await startSignIn(browser, 'nobody', 'eu');
  await expect(page).toHaveURL(/\/sign-in\?refused=no_role$/);
  await expect(
    page.getByRole('heading', { level: 1, name: 'Your account has no powerdeck role' }),
  ).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('Nobody was signed in to powerdeck.');
  await expect(page.getByRole('alert')).toBeFocused();
  await shots(page, 'sign-in-refused-no-role');

  // Signing out of the company account ends the IdP's session and comes back, state checked.
  await page.getByRole('button', { name: 'Sign out of your company account' }).click();
  await idpPages().confirmSignOut(page);
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(page.getByRole('status')).toHaveText(
    'You are signed out of powerdeck and of your company account.',
  );
  // So the next sign-in asks for an account again instead of landing on the refusal.
  await page.getByRole('link', { name: 'Sign in with your company account' }).click();
  await expect(idpPages().loginField(page)).toBeVisible();
});

test('an administrator of a region without a connection is led to register it, checked first', async ({
  browser,
}) => {
  const admin = await startSignIn(browser, 'admin', 'au');
  await expect(admin).toHaveURL(/\/overview$/);
  await expect(
    admin.getByRole('heading', { level: 1, name: 'No vendor connection for Australia yet' }),
  ).toBeVisible();
  await expect(admin.getByText('Could not load the bound sites')).toHaveCount(0);
  await shots(admin, 'no-connection-admin');

  await admin.getByRole('link', { name: 'Register the Australia connection' }).click();
  await expect(admin).toHaveURL(/\/connections$/);
  const australia = admin.getByRole('region', { name: 'Australia' });
  await australia.getByLabel('Client ID').fill('demo-au');
  await australia.getByLabel('Client secret').fill('not-the-secret');
  await australia.getByRole('button', { name: 'Save connection' }).click();
  await expect(australia.getByRole('alert')).toContainText('the connection was not saved');
  await expect(australia.getByText(/No connection yet/)).toBeVisible();

  await australia.getByLabel('Client secret').fill('demo-au-secret');
  await australia.getByRole('button', { name: 'Save connection' }).click();
  await expect(australia.getByRole('status')).toContainText('Saved and checked');
  await expect(australia.getByText('Client ID demo-au, registered')).toBeVisible();

  // The page that waited for the connection now works; the audit names both attempts.
  await admin.getByRole('link', { name: 'Sites' }).click();
  await expect(admin.getByRole('heading', { level: 1, name: 'Sites' })).toBeVisible();
  await admin.getByRole('link', { name: 'Audit' }).click();
  const rows = admin.getByRole('table').getByRole('row');
  await expect(rows.filter({ hasText: 'refused by the token endpoint' })).toContainText(
    'Ada Admin',
  );
  await expect(rows.filter({ hasText: 'done, checked' })).toContainText(
    'Registered a vendor connection',
  );
});
