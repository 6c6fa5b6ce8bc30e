import { test as base, expect, type Page } from '@playwright/test';
import { sandboxAdmin } from './sandbox-admin.ts';

/** Demo credentials of the sandbox fixture (docs/architecture.md, Upstream contract: Fixtures). */
export const DEMO_EU = { region: 'Europe', clientId: 'demo-eu', clientSecret: 'demo-eu-secret' };

/**
 * Signs in through the sign-in page, which opens the overview, and goes on to the sites page
 * through the main navigation (where most tests begin).
 */
export async function signIn(page: Page, credentials = DEMO_EU): Promise<void> {
  await signInToOverview(page, credentials);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
  await expect(page.getByRole('heading', { name: 'Sites', level: 1 })).toBeVisible();
}

/**
 * Opens the header's account menu (who is signed in, the account's own pages, sign-out) and
 * returns it.
 */
export async function openAccountMenu(page: Page) {
  await page.getByRole('button', { name: /^Account:/ }).click();
  const menu = page.locator('#account-menu');
  await expect(menu).toBeVisible();
  return menu;
}

/** Signs out through the account menu. */
export async function signOutOf(page: Page): Promise<void> {
  const menu = await openAccountMenu(page);
  await menu.getByRole('button', { name: 'Sign out' }).click();
}

/** Signs in through the sign-in page and waits for the overview it opens on. */
export async function signInToOverview(page: Page, credentials = DEMO_EU): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('Region').selectOption({ label: credentials.region });
  await page.getByLabel('Client ID').fill(credentials.clientId);
  await page.getByLabel('Client secret').fill(credentials.clientSecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(
    page.getByRole('heading', { name: `Overview: ${credentials.region}`, level: 1 }),
  ).toBeVisible();
}

/**
 * Binds a site by its Plant ID from the sites page, and waits until the bind has ended: the site
 * shows before the list is read again, and the form clears its field only then, so a next
 * bind typed at once could lose its ID (a clean-clone run bound an empty field that way).
 */
export async function bindSite(page: Page, siteId: string): Promise<void> {
  await page.getByLabel('Site ID').fill(siteId);
  await page.getByRole('button', { name: 'Bind', exact: true }).click();
  // A bind reads the site's devices and their histories first: a 50-device site of the `large`
  // fixture took over 10 s with both browser test processes running on a loaded 2-core machine.
  await expect(page.getByRole('region', { name: new RegExp(siteId) })).toBeVisible({
    timeout: 30_000,
  });
  await expect(page.getByRole('button', { name: 'Bind', exact: true })).toBeEnabled();
  await expect(page.getByLabel('Site ID')).toHaveValue('');
}

/** Every browser test starts from the sandbox fixture: no bindings, no commands, wall clock. */
export const test = base.extend<{ freshSandbox: undefined }>({
  freshSandbox: [
    // Playwright reads the fixture's dependencies from this destructuring, so it must stay.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      await sandboxAdmin.reset();
      await use(undefined);
    },
    { auto: true },
  ],
});

export { expect };
