import { test, expect, signIn, bindSite, openAccountMenu } from './support/fixtures.ts';
import { screenshotPath } from './support/screenshots.ts';

/**
 * An administrator gives a script its API token on the Tokens page (docs/automation.md): makes
 * it, copies its secret (shown once), sees the script's request succeed without a cookie, and
 * revokes it after a confirmation, after which the same request is refused.
 */

const SITE = 'PLANT-EU-001';
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;

test('an administrator makes a token, copies it once, and revokes it', async ({
  page,
  context,
  request,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signIn(page);
  await bindSite(page, SITE);
  await (await openAccountMenu(page)).getByRole('link', { name: 'Tokens' }).click();
  await expect(page.getByRole('heading', { name: 'API tokens', level: 1 })).toBeVisible();

  await page.getByLabel('Name').fill('trading desk');
  await page.getByLabel('Role').selectOption('dispatcher');
  await page.getByLabel('Sites (optional)').fill(SITE);
  await page.getByRole('button', { name: 'Make token' }).click();
  const made = page.getByRole('status').filter({ hasText: 'shown this once' });
  await expect(made).toBeVisible();
  const secret = (await made.getByLabel('Token secret').textContent()) ?? '';
  expect(secret).toMatch(/^pdk_/);
  await made.getByRole('button', { name: 'Copy token' }).click();
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: screenshotPath(`tokens-${size.width}x${size.height}.png`) });
  }

  // The script: no cookie, no CSRF proof.
  const asScript = () =>
    request.get(`/api/devices/BAT-EU-001-A/commands/cmd_none`, {
      headers: { authorization: `Bearer ${secret}` },
    });
  expect((await asScript()).status()).toBe(404);

  await made.getByRole('button', { name: 'I have kept it' }).click();
  await expect(page.getByText(secret)).toHaveCount(0);
  const row = page.getByRole('row', { name: /trading desk/ });
  await expect(row).toContainText(SITE);
  await row.getByRole('button', { name: 'Revoke trading desk' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Revoke the token "trading desk"?' });
  await dialog.getByRole('button', { name: 'Revoke token' }).click();
  await expect(row).toContainText('revoked');
  const refused = await asScript();
  expect(refused.status()).toBe(401);
  expect(((await refused.json()) as { code: string }).code).toBe('token_revoked');
});
