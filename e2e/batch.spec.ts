import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';
import { expectNoSeriousAxeViolations } from './support/axe.ts';

const SITE = 'PLANT-EU-100';
const OVERLAPPED = 'BAT-EU-100-01';
const MINUTE_MS = 60_000;

test('compose a 50-device batch, see the pre-check, watch it run, cancel it with mixed results', async ({
  page,
  baseURL,
}) => {
  // Fifty devices sent, polled and cancelled take over a minute on a loaded 2-core machine, two
  // with two browser test processes at once.
  test.setTimeout(180_000);
  await signIn(page);
  await bindSite(page, SITE);

  // An active command on one device whose window covers the batch's default window.
  const now = await sandboxAdmin.now();
  const existing = await page.request.post(`/api/devices/${OVERLAPPED}/commands`, {
    headers: { 'X-CSRF': '1', Origin: baseURL ?? '' },
    data: {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(Math.ceil((now.getTime() + 2 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS)
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
      endTime: new Date(Math.ceil((now.getTime() + 180 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS)
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    },
  });
  expect(existing.status()).toBe(202);

  await page.getByRole('link', { name: 'Batches' }).click();
  await page.getByRole('link', { name: 'New batch' }).click();
  await expect(page.getByRole('heading', { name: 'New batch' })).toBeVisible();

  await page.getByLabel('Site', { exact: true }).selectOption({ value: SITE });
  await page.getByRole('button', { name: /Select all visible \(60\)/ }).click();
  const counter = page.locator('.batch-counter');
  await expect(counter).toHaveText('50 of 50 devices selected');
  await expect(page.getByRole('alert')).toContainText('at most 50 devices');

  await page.getByRole('checkbox', { name: 'Include BAT-EU-100-51' }).click();
  await expect(page.getByRole('alert')).toContainText('BAT-EU-100-51 not added');
  await expect(counter).toHaveText('50 of 50 devices selected');
  await expect(page.getByRole('checkbox', { name: 'Include BAT-EU-100-51' })).not.toBeChecked();

  await page.getByLabel('Target battery power (W)').fill('-2000');
  const precheck = page.getByRole('region', { name: 'Pre-check' });
  await expect(precheck).toContainText('1 of 50 devices flagged');
  await expect(
    precheck.getByRole('listitem').filter({ hasText: OVERLAPPED }).first(),
  ).toContainText('Its window overlapped another command');
  await expect(precheck.getByRole('button', { name: `Drop ${OVERLAPPED}` })).toBeVisible();
  await expectNoSeriousAxeViolations(page);

  // An accepted batch opens its own page, read from the ledger.
  await page.getByRole('button', { name: 'Submit batch to 50 devices' }).click();
  await expect(page).toHaveURL(/\/batches\/(?!new$)[^/]+$/);
  await expect(page.getByRole('heading', { name: /Batch / })).toBeVisible();

  const count = (status: string) => page.getByTestId(`count-${status}`).locator('dd');
  // The page counts the devices up as the server sends to each: 20 in 10 s on a loaded machine.
  await expect(count('received')).toHaveText('49', { timeout: 60_000 });
  await expect(count('cancelled')).toHaveText('1');
  await expect(page.locator(`tr[data-device="${OVERLAPPED}"]`)).toContainText(
    'Its window overlapped another command',
  );

  await sandboxAdmin.advanceClock(15 * MINUTE_MS);
  await expect(count('executing')).toHaveText('49', { timeout: 60_000 });
  await expect(page.getByRole('status').filter({ hasText: 'In progress' })).toBeVisible();

  await page.getByRole('button', { name: 'Cancel batch' }).click();
  const dialog = page.getByRole('alertdialog', { name: /^Cancel batch / });
  await expect(dialog).toContainText('Each device succeeds or fails on its own');
  await dialog.getByRole('button', { name: 'Cancel batch' }).click();

  // Its 49 cancels go out one device at a time, as the send did.
  const results = page.getByRole('region', { name: 'Batch cancel results' });
  await expect(results).toContainText('Partly cancelled: 49 of 50 device commands cancelled', {
    timeout: 60_000,
  });
  await expect(results.getByRole('list', { name: 'Devices not cancelled' })).toContainText(
    `${OVERLAPPED}: It was already cancelled: its window overlapped another command.`,
  );
  await expect(
    results.getByRole('list', { name: 'Cancelled devices' }).getByRole('listitem'),
  ).toHaveCount(49);
  await expect(count('cancelled')).toHaveText('50', { timeout: 60_000 });
  await expect(
    page.getByRole('status').filter({ hasText: 'Finished with cancellations' }),
  ).toBeVisible();
  await expectNoSeriousAxeViolations(page);
  const batchPath = new URL(page.url()).pathname;

  await page.getByRole('link', { name: 'Batches', exact: true }).first().click();
  await expect(page.getByRole('heading', { name: 'Batches' })).toBeVisible();
  await expect(page.getByRole('table')).toContainText('50 cancelled');
  await expectNoSeriousAxeViolations(page);

  // Opened again from the list, the batch page shows that cancel from the ledger: when, who, and
  // the same mixed results.
  await page.locator(`a[href="${batchPath}"]`).click();
  const past = page.getByRole('region', { name: 'Batch cancel results' });
  await expect(past).toContainText('Last batch cancel, sent');
  await expect(past).toContainText('Partly cancelled: 49 of 50 device commands cancelled');
  await expect(past.getByRole('list', { name: 'Devices not cancelled' })).toContainText(OVERLAPPED);
});
