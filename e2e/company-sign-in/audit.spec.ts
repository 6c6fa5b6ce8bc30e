import { expect, test, type Browser, type Page } from '@playwright/test';
import { signOutOf } from '../support/fixtures.ts';
import { idpPages, type IdpPerson } from '../support/idp-pages.ts';

/**
 * Company sign-in end to end (README, Sign-in for teams): three people sign in through the
 * identity provider (oidc-provider, and Glewlwyd in its own project), an administrator registers the vendor connection and binds
 * a site, a dispatcher schedules a command through it, and a viewer reads in the audit page who
 * did what. Each person has a browser of their own, as on three desks.
 */

/**
 * Signs `login` in through the IdP's sign-in page, which opens the overview, and goes on to the
 * sites; in a region without a vendor connection the page stays on the empty state in the
 * overview's place (`heading`).
 */
async function signIn(
  browser: Browser,
  login: IdpPerson,
  heading = 'Overview: Europe',
): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByLabel('Region').selectOption('eu');
  await page.getByRole('link', { name: 'Sign in with your company account' }).click();
  await idpPages().signIn(page, login);
  await expect(page).toHaveURL(/\/overview$/);
  await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
  if (heading.startsWith('Overview')) {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Sites' })
      .click();
    await expect(page.getByRole('heading', { name: 'Sites', level: 1 })).toBeVisible();
  }
  return page;
}

test('three people sign in through the IdP; the audit page shows who did what', async ({
  browser,
}) => {
  // The administrator, led from the empty Sites page, registers the Europe connection, checks it
  // and binds a site.
  const admin = await signIn(browser, 'admin', 'No vendor connection for Europe yet');
  await expect(admin.getByLabel('Signed in')).toContainText('Ada Admin');
  await admin.getByRole('link', { name: 'Register the Europe connection' }).click();
  const europe = admin.getByRole('region', { name: 'Europe' });
  await europe.getByLabel('Client ID').fill('demo-eu');
  await europe.getByLabel('Client secret').fill('demo-eu-secret');
  await europe.getByRole('button', { name: 'Save connection' }).click();
  await expect(europe.getByRole('status')).toContainText('Saved and checked');
  await expect(europe.getByText('Client ID demo-eu, registered')).toBeVisible();
  await europe.getByRole('button', { name: 'Check connection' }).click();
  await expect(europe.getByRole('status')).toContainText('issued a token');
  await admin.getByRole('link', { name: 'Sites' }).click();
  await admin.getByLabel('Site ID').fill('PLANT-EU-001');
  await admin.getByRole('button', { name: 'Bind', exact: true }).click();
  await expect(admin.getByRole('heading', { name: /PLANT-EU-001/ })).toBeVisible();

  // Sign-out ends the IdP's session too and comes back to powerdeck's sign-in page, which
  // checks the state the IdP brings back.
  await signOutOf(admin);
  await idpPages().confirmSignOut(admin);
  await expect(admin).toHaveURL(/\/sign-in$/);
  await expect(admin.getByRole('status')).toHaveText(
    'You are signed out of powerdeck and of your company account.',
  );
  await expect(
    admin.getByRole('link', { name: 'Sign in with your company account' }),
  ).toBeVisible();

  // The dispatcher schedules a command through the administrator's connection.
  const dispatcher = await signIn(browser, 'dispatcher');
  await expect(dispatcher.getByLabel('Signed in')).toContainText('Dan Dispatcher');
  await expect(dispatcher.getByRole('button', { name: 'Unbind' })).toHaveCount(0);
  await dispatcher.getByRole('link', { name: 'BAT-EU-001-A', exact: true }).click();
  await dispatcher.getByLabel('Target battery power (W)', { exact: true }).fill('-2000');
  await dispatcher.getByRole('button', { name: 'Submit command' }).click();
  await expect(
    dispatcher.getByRole('status').filter({ hasText: 'Command submitted' }),
  ).toBeVisible();

  // The viewer may not change anything, and reads who did what.
  const viewer = await signIn(browser, 'viewer');
  await viewer.getByRole('link', { name: 'BAT-EU-001-A', exact: true }).click();
  await expect(
    viewer.getByText(/only a dispatcher or an administrator may schedule/),
  ).toBeVisible();
  await expect(viewer.getByRole('button', { name: 'Submit command' })).toHaveCount(0);
  // The dispatcher's command is listed, received, with no Cancel for the viewer.
  await expect(viewer.getByRole('row').filter({ hasText: '2 kW charge' })).toContainText(
    'received',
  );
  await expect(viewer.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  await viewer
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Sites' })
    .click();
  await expect(viewer.getByText(/You are signed in as a viewer/)).toBeVisible();
  await expect(viewer.getByLabel('Site ID')).toHaveCount(0);
  await viewer.getByRole('link', { name: 'Audit' }).click();
  const table = viewer.getByRole('table');
  const registered = table.getByRole('row').filter({ hasText: 'Registered a vendor connection' });
  await expect(registered).toContainText('Ada Admin');
  await expect(registered).toContainText('Europe · client ID demo-eu');
  const bound = table.getByRole('row').filter({ hasText: 'Bound a site' });
  await expect(bound).toContainText('Ada Admin');
  await expect(bound).toContainText('ada.admin@example.com');
  const scheduled = table.getByRole('row').filter({ hasText: 'Scheduled a command' });
  await expect(scheduled).toContainText('Dan Dispatcher');
  await expect(scheduled).toContainText('BAT-EU-001-A');

  await viewer
    .getByLabel('Person')
    .selectOption({ label: 'Dan Dispatcher (dan.dispatcher@example.com)' });
  await expect(table.getByRole('row').filter({ hasText: 'Bound a site' })).toHaveCount(0);
  await expect(
    table.getByRole('row').filter({ hasText: 'Registered a vendor connection' }),
  ).toHaveCount(0);
  await expect(table.getByRole('row').filter({ hasText: 'Dan Dispatcher' })).toHaveCount(1);

  const download = viewer.waitForEvent('download');
  await viewer.getByRole('button', { name: 'Export CSV' }).click();
  expect((await download).suggestedFilename()).toBe('powerdeck-audit.csv');
});
