import { test, expect, signIn, bindSite, signOutOf, DEMO_EU } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';

const SECRET = DEMO_EU.clientSecret;

test('wrong credentials are refused with an alert and no cookie', async ({ page, context }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Sign in to powerdeck' })).toBeVisible();
  await page.getByLabel('Client ID').fill('demo-eu');
  await page.getByLabel('Client secret').fill('not-the-secret');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('client ID or secret');
  expect(await context.cookies()).toEqual([]);
});

test('the sign-in page asks how operators sign in while its scripts load, and once', async ({
  page,
}) => {
  const events: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/api/session/mode')) events.push('mode asked');
  });
  page.on('requestfinished', (request) => {
    if (request.resourceType() === 'script') events.push('script loaded');
  });
  await page.goto('/sign-in');
  await expect(page.getByText('Use the client ID and secret')).toBeVisible();
  // Asked for from the page's answer (its preload), not by the scripts once they ran; the
  // scripts' own read takes that answer (a preload it did not match would be asked for twice).
  expect(events.filter((event) => event === 'mode asked')).toHaveLength(1);
  expect(events.indexOf('mode asked')).toBeLessThan(events.lastIndexOf('script loaded'));
});

test('sign in, bind a site, schedule a command and watch it complete, cancel another, sign out', async ({
  page,
  context,
}) => {
  const secretSeen: string[] = [];
  page.on('response', async (response) => {
    const body = await response.text().catch(() => '');
    if (body.includes(SECRET)) secretSeen.push(response.url());
  });

  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Sign in to powerdeck' })).toBeVisible();
  await signIn(page);

  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });

  await page.getByLabel('Site ID').fill('PLANT-NOPE');
  await page.getByRole('button', { name: 'Bind' }).click();
  await expect(page.getByRole('alert')).toContainText('PLANT-NOPE');

  await bindSite(page, 'PLANT-EU-001');
  await expect(page.getByRole('link', { name: 'BAT-EU-001-A', exact: true })).toBeVisible();

  await page.getByRole('link', { name: 'BAT-EU-001-A', exact: true }).click();
  await expect(page.getByRole('heading', { name: /BAT-EU-001-A/ })).toBeVisible();
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('-3000');
  await page.getByLabel('Charge cut-off SoC (%)', { exact: true }).fill('90');
  await page.getByRole('button', { name: 'Submit command' }).click();
  const submitted = page.getByRole('status').filter({ hasText: 'Command submitted' });
  await expect(submitted).toBeVisible();
  const commandId = (await submitted.textContent())?.match(/cmd_[A-Za-z0-9_-]+/)?.[0];
  expect(commandId).toBeTruthy();

  const row = page.getByRole('row').filter({ hasText: commandId ?? '' });
  await expect(row).toContainText('received');

  // The form's default window starts within the next 15 minutes and lasts one hour.
  await sandboxAdmin.advanceClock(16 * 60_000);
  await expect(row).toContainText('executing');
  await sandboxAdmin.advanceClock(60 * 60_000);
  await expect(row).toContainText('completed');
  await expect(row.getByRole('button', { name: 'Cancel' })).toHaveCount(0);

  // A second command, cancelled by the operator before it starts.
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('2000');
  await page.getByLabel('Charge cut-off SoC (%)', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Submit command' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Command submitted' })).not.toContainText(
    commandId ?? '',
  );
  const secondId = (
    await page.getByRole('status').filter({ hasText: 'Command submitted' }).textContent()
  )?.match(/cmd_[A-Za-z0-9_-]+/)?.[0];
  const secondRow = page.getByRole('row').filter({ hasText: secondId ?? '' });
  await secondRow.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Cancel command' }).click();
  await expect(secondRow).toContainText('cancelled');
  await expect(secondRow).toContainText('Cancelled by an operator');

  // Unbind with confirmation.
  await page.goto('/sites');
  await page
    .getByRole('region', { name: /PLANT-EU-001/ })
    .getByRole('button', { name: 'Unbind' })
    .click();
  await page.getByRole('button', { name: 'Unbind site' }).click();
  await expect(page.getByRole('region', { name: /PLANT-EU-001/ })).toHaveCount(0);

  // Sign out destroys the server-side session: the old cookie no longer works.
  await signOutOf(page);
  await expect(page.getByRole('heading', { name: 'Sign in to powerdeck' })).toBeVisible();
  const replay = await page.request.get('/api/session', {
    headers: { cookie: `${cookie?.name}=${cookie?.value}` },
  });
  expect(replay.status()).toBe(401);

  // A string expression: this file is typed for Node, the expression runs in the page.
  const storage = await page.evaluate<string>(
    'JSON.stringify({ ...localStorage, ...sessionStorage })',
  );
  expect(storage).not.toContain(SECRET);
  expect(secretSeen).toEqual([]);
});

test('cancelling a command that completed meanwhile explains the conflict', async ({ page }) => {
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  await page.getByRole('link', { name: 'BAT-EU-001-B', exact: true }).click();
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('1000');
  await page.getByRole('button', { name: 'Submit command' }).click();
  const status = page.getByRole('status').filter({ hasText: 'Command submitted' });
  await expect(status).toBeVisible();
  const commandId = (await status.textContent())?.match(/cmd_[A-Za-z0-9_-]+/)?.[0] ?? '';
  const row = page.getByRole('row').filter({ hasText: commandId });
  await row.getByRole('button', { name: 'Cancel' }).click();
  // While the confirmation is open, the window runs out on the sandbox clock.
  await sandboxAdmin.advanceClock(2 * 60 * 60_000);
  await page.getByRole('button', { name: 'Cancel command' }).click();
  // The Undo offer of the submission is a toast (an alert too), so the refusal is found in its table.
  await expect(page.getByRole('region', { name: 'Commands' }).getByRole('alert')).toContainText(
    /completed command cannot be cancelled/i,
  );
});
