import type { APIRequestContext } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';

/*
 * Operator flows across screens, as a new operator met them: what happens right after a batch
 * is sent, when its answer is lost, and on its page afterwards. Each test failed on the main
 * branch before this work.
 */

const SITE = 'PLANT-EU-001';
const DEVICE = 'BAT-EU-001-A';

/** Commands the upstream holds for `deviceId` over the next two days, read through the BFF. */
async function commandsOf(
  request: APIRequestContext,
  deviceId: string,
): Promise<{ id: string; status: string; batchCommandId?: string }[]> {
  const startTime = new Date(Date.now() - 3_600_000).toISOString();
  const endTime = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const response = await request.get(
    `/api/devices/${deviceId}/commands?startTime=${startTime}&endTime=${endTime}`,
  );
  expect(response.status()).toBe(200);
  return ((await response.json()) as { commands: { id: string; status: string }[] }).commands;
}

test('a batch whose answer was lost is sent once, and the operator lands on its page, focused', async ({
  page,
}) => {
  await signIn(page);
  await bindSite(page, SITE);
  await page.goto('/batches/new');
  await page.getByLabel('Site', { exact: true }).selectOption({ value: SITE });
  await page.getByRole('button', { name: /Select all visible \(3\)/ }).click();
  await page.getByLabel('Target battery power (W)').fill('-2000');
  await expect(page.getByRole('region', { name: 'Pre-check' })).toContainText(
    'All 3 devices checked',
  );

  // The BFF accepts the first batch, but its answer never reaches the browser.
  const batchKeys: (string | null)[] = [];
  await page.route('**/api/devices/commands/batch', async (route) => {
    batchKeys.push(await route.request().headerValue('idempotency-key'));
    if (batchKeys.length === 1) {
      await route.fetch();
      await route.abort('connectionreset');
    } else await route.continue();
  });
  await page.getByRole('button', { name: 'Submit batch to 3 devices' }).click();

  await expect(page).toHaveURL(/\/batches\/(?!new$)[^/]+$/);
  const heading = page.getByRole('heading', { level: 1, name: /^Batch / });
  await expect(heading).toBeFocused();
  await expect(page.getByText(/flagged/)).toHaveCount(0);

  // One batch, sent once: every try carried one key, and each device holds one command of it.
  expect(batchKeys.length).toBeGreaterThanOrEqual(2);
  expect(new Set(batchKeys).size).toBe(1);
  expect(batchKeys[0]).toBeTruthy();
  const commands = await commandsOf(page.request, DEVICE);
  expect(commands.map((c) => c.status)).toEqual(['received']);
  const batchId = new URL(page.url()).pathname.split('/').pop();
  expect(commands[0]?.batchCommandId).toBe(batchId);
});
