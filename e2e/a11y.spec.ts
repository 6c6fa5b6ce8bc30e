import { test, expect, signIn, bindSite, DEMO_EU } from './support/fixtures.ts';
import { seriousViolations } from './support/axe.ts';

/*
 * axe on the sign-in, sites and device pages, light and dark, with each dialog and popover of
 * those pages open: no serious or critical violation. The combobox's suggestion list is scanned
 * closed (docs/decisions/003-component-kit.md, axe in e2e).
 */

for (const colorScheme of ['light', 'dark'] as const) {
  test.describe(`${colorScheme} theme`, () => {
    test.beforeEach(async ({ page }) => {
      await page.emulateMedia({ colorScheme });
    });

    test('sign-in page, empty and after a refusal', async ({ page }) => {
      await page.goto('/sign-in');
      await expect(page.getByRole('heading', { name: 'Sign in to powerdeck' })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByLabel('Client ID').fill(DEMO_EU.clientId);
      await page.getByLabel('Client secret').fill('not-the-secret');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert')).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    });

    test('sites page with a long site unfolded and filtered, and with the unbind dialog open', async ({
      page,
    }) => {
      await signIn(page);
      await bindSite(page, 'PLANT-EU-001');
      await bindSite(page, 'PLANT-EU-100');
      const large = page.getByRole('region', { name: /PLANT-EU-100/ });
      await large.getByRole('button', { name: 'Show 60 devices' }).click();
      await large.getByRole('combobox', { name: 'Filter devices' }).fill('Rack');
      await page.keyboard.press('Escape');
      await expect(large.getByRole('status')).toContainText('devices');
      expect(await seriousViolations(page)).toEqual([]);

      await page
        .getByRole('region', { name: /PLANT-EU-001/ })
        .getByRole('button', { name: 'Unbind' })
        .click();
      // Named: the submission's Undo offer is a toast, an alertdialog as well.
      await expect(page.getByRole('alertdialog', { name: /^Unbind / })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    });

    test('device page with the calendar open and with the cancel dialog open', async ({ page }) => {
      await signIn(page);
      await bindSite(page, 'PLANT-EU-001');
      await page.getByRole('link', { name: 'BAT-EU-001-A', exact: true }).click();
      await expect(page.getByRole('heading', { name: /BAT-EU-001-A/ })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole('button', { name: 'Choose date Start' }).click();
      await expect(page.getByRole('dialog', { name: /Choose date/ })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');

      await page.getByLabel('Target battery power (W)', { exact: true }).fill('-2000');
      await page.getByRole('button', { name: 'Submit command' }).click();
      const submitted = page.getByRole('status').filter({ hasText: 'Command submitted' });
      await expect(submitted).toBeVisible();
      const commandId = (await submitted.textContent())?.match(/cmd_[A-Za-z0-9_-]+/)?.[0] ?? '';
      const row = page.getByRole('row').filter({ hasText: commandId });
      await expect(row).toContainText('received');
      expect(await seriousViolations(page)).toEqual([]);

      await row.getByRole('button', { name: 'Cancel' }).click();
      // Named: the submission's Undo offer is a toast, an alertdialog as well.
      await expect(page.getByRole('alertdialog', { name: /^Cancel command/ })).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    });
  });
}
