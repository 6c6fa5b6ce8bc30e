import type { Page } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';

/**
 * The unbind of a site with work on it, as an operator meets it: a command waiting on one device
 * and a batch sent to the other two. The confirmation lists what waits and offers to cancel it
 * first or to leave it running; either way the site is unbound once, focus lands on what happened,
 * and the batch page says what became of its devices (docs/architecture.md, Ledger).
 */

const SITE = 'PLANT-EU-001';
const SITE_NAME = 'Berlin Logistics Hub';
const ALONE = 'BAT-EU-001-A';
const IN_BATCH = ['BAT-EU-001-B', 'BAT-EU-001-C'];
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

const utcMinute = (ms: number) =>
  new Date(Math.ceil(ms / MINUTE_MS) * MINUTE_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A command waiting on {@link ALONE} and a batch sent to {@link IN_BATCH}, both hours ahead on the
 * sandbox clock, through the BFF as the pages would; returns the command's and the batch's IDs.
 */
async function seedWork(page: Page): Promise<{ commandId: string; batchCommandId: string }> {
  const headers = { 'X-CSRF': '1', Origin: new URL(page.url()).origin };
  const now = (await sandboxAdmin.now()).getTime();
  const command = await page.request.post(`/api/devices/${ALONE}/commands`, {
    headers,
    data: {
      powerControl: { targetBatteryPowerW: -3000 },
      startTime: utcMinute(now + 2 * HOUR_MS),
      endTime: utcMinute(now + 3 * HOUR_MS),
    },
  });
  expect(command.status()).toBe(202);
  const batch = await page.request.post('/api/batches', {
    headers,
    data: {
      devices: IN_BATCH,
      command: {
        powerControl: { targetBatteryPowerW: -2000 },
        startTime: utcMinute(now + 4 * HOUR_MS),
        endTime: utcMinute(now + 5 * HOUR_MS),
      },
    },
  });
  expect(batch.status()).toBe(202);
  return {
    commandId: ((await command.json()) as { id: string }).id,
    batchCommandId: ((await batch.json()) as { batchCommandId: string }).batchCommandId,
  };
}

/** Counts the unbinds the page asks the BFF for (`DELETE /api/sites/{siteId}`). */
function countUnbinds(page: Page): () => number {
  let unbinds = 0;
  page.on('request', (request) => {
    if (request.method() === 'DELETE' && new URL(request.url()).pathname === `/api/sites/${SITE}`)
      unbinds += 1;
  });
  return () => unbinds;
}

/** Opens the unbind confirmation of {@link SITE} and checks it lists the three waiting commands. */
async function openUnbind(page: Page) {
  await page
    .getByRole('region', { name: new RegExp(SITE) })
    .getByRole('button', { name: 'Unbind' })
    .click();
  const dialog = page.getByRole('alertdialog', { name: `Unbind ${SITE_NAME} (${SITE})?` });
  const waiting = dialog.getByRole('list', { name: 'Waiting and executing commands' });
  await expect(waiting.getByRole('listitem')).toHaveCount(3);
  for (const deviceId of [ALONE, ...IN_BATCH])
    await expect(waiting.getByRole('listitem').filter({ hasText: deviceId })).toContainText(
      'Received (pending)',
    );
  await expect(dialog).toContainText('An unbind cancels nothing');
  await expect(dialog.getByRole('button', { name: 'Leave them running and unbind' })).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel them, then unbind' })).toBeVisible();
  return dialog;
}

/** The site is gone from the sites page, and focus is on the words that say it was unbound. */
async function expectUnboundOnce(page: Page, unbinds: () => number) {
  await expect(page.getByRole('region', { name: new RegExp(SITE) })).toHaveCount(0);
  const outcome = page.getByRole('status').filter({ hasText: `Unbound ${SITE}` });
  await expect(outcome).toBeFocused();
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(unbinds()).toBe(1);
}

test.beforeEach(async ({ page }) => {
  await signIn(page);
  await bindSite(page, SITE);
});

test('cancel them, then unbind: the waiting commands end cancelled and the site is unbound once', async ({
  page,
}) => {
  const { commandId, batchCommandId } = await seedWork(page);
  const unbinds = countUnbinds(page);
  const dialog = await openUnbind(page);

  // An impatient double click: one round of cancels, one unbind.
  await dialog.getByRole('button', { name: 'Cancel them, then unbind' }).dblclick();
  await expect(dialog).toHaveCount(0);
  await expectUnboundOnce(page, unbinds);

  // The batch's devices ended cancelled before the unbind: that outcome stands, final.
  await page.goto(`/batches/${batchCommandId}`);
  for (const deviceId of IN_BATCH) {
    const row = page.locator(`tr[data-device="${deviceId}"]`);
    await expect(row).toContainText('Cancelled by an operator');
    await expect(row).toContainText('Its site was unbound since');
  }
  await expect(page.getByRole('status').filter({ hasText: /^Finished/ })).toContainText(
    '2 cancelled',
  );

  // Bound again, the lone device's command is cancelled too, by the operator.
  await page.goto('/sites');
  await bindSite(page, SITE);
  await page.getByRole('link', { name: ALONE, exact: true }).click();
  const row = page.getByRole('row').filter({ hasText: commandId });
  await expect(row).toContainText('cancelled');
  await expect(row).toContainText('Cancelled by an operator');
});

test('leave them running and unbind: the site is gone, and the batch says its devices are no longer followed', async ({
  page,
}) => {
  const { batchCommandId } = await seedWork(page);
  const unbinds = countUnbinds(page);
  const dialog = await openUnbind(page);

  await dialog.getByRole('button', { name: 'Leave them running and unbind' }).dblclick();
  await expect(dialog).toHaveCount(0);
  await expectUnboundOnce(page, unbinds);

  // The device pages no longer reach it, and say how to reach it again.
  await page.goto(`/sites/${SITE}/devices/${ALONE}`);
  await expect(page.getByRole('heading', { name: 'Device not found', level: 1 })).toBeVisible();
  await expect(page.getByText(`Site ${SITE} is not bound to this client.`)).toBeVisible();

  // The batch is final, not failed: its devices are no longer followed, in the operator's words.
  await page.goto(`/batches/${batchCommandId}`);
  for (const deviceId of IN_BATCH) {
    const row = page.locator(`tr[data-device="${deviceId}"]`);
    await expect(row).toContainText('Site unbound: no longer followed');
    await expect(row).toContainText('its command may still run on the vendor');
  }
  const progress = page.getByRole('status').filter({ hasText: /^Finished/ });
  await expect(progress).toContainText('2 no longer followed (site unbound)');
  await expect(page.getByRole('progressbar', { name: 'Device commands final' })).toHaveAttribute(
    'aria-valuetext',
    '2 of 2 final',
  );
  await expect(page.getByTestId('count-unbound').locator('dd')).toHaveText('2');
  // Not counted among the failed: nothing to resend, and no cancel of the batch to offer.
  await expect(page.getByRole('button', { name: 'Select failed (0)' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Cancel batch' })).toBeDisabled();
});
