import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import Papa from 'papaparse';
import { bindSite, signIn } from '../support/fixtures.ts';

// The `large` fixture: PLANT-EU-201..220 with 50 devices each (src/sandbox/fixtures/large-fixture.ts).
// This stack is never reset; binding is idempotent and each run has a data directory of its own.
const SITES = ['PLANT-EU-202', 'PLANT-EU-203'];

test('a fleet job sends one command to every device of two sites, in batches of 50', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  for (const siteId of SITES) await bindSite(page, siteId);

  await page.getByRole('link', { name: 'Fleet jobs' }).click();
  await expect(page.getByRole('heading', { name: 'Fleet jobs' })).toBeVisible();
  await page.getByRole('link', { name: 'New fleet job' }).click();
  await expect(page.getByRole('heading', { name: 'New fleet job' })).toBeVisible();
  for (const siteId of SITES)
    await page.getByRole('checkbox', { name: new RegExp(siteId) }).check();
  await expect(page.getByText('100 devices in 2 batches')).toBeVisible();
  await page.getByLabel('Batches per minute').fill('60');
  await page.getByLabel('Stop when failed or cancelled exceeds (%)').fill('100');
  await page.getByLabel('Target battery power (W)').fill('3000');
  await page.screenshot({ path: 'docs/screenshots/fleet-job-new-1440x900.png', fullPage: true });
  await page.getByRole('button', { name: 'Start fleet job for 100 devices' }).click();

  await expect(page.getByRole('heading', { name: /Fleet job / })).toBeVisible();
  const state = page.getByRole('status').filter({ hasText: 'batches sent or tried' });
  await expect(state).toContainText('Every batch sent. 2 of 2 batches', { timeout: 90_000 });
  const progress = page.getByRole('region', { name: 'Progress' });
  await expect(progress).toContainText('Devices100');
  await expect(progress).toContainText('Sent100');
  const batches = page.getByRole('region', { name: 'Batches' });
  await expect(batches.getByRole('row')).toHaveCount(3);
  await batches.getByText('50 devices').first().click();
  await expect(batches.getByText('BAT-EU-202-001')).toBeVisible();
  await page.screenshot({ path: 'docs/screenshots/fleet-job-1440x900.png', fullPage: true });

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download outcomes (CSV)' }).click(),
  ]);
  const csv = await readFile((await download.path()) ?? '', 'utf8');
  const rows = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data;
  expect(rows).toHaveLength(100);
  expect(new Set(rows.map((r) => r.deviceId)).size).toBe(100);
  expect(rows.every((r) => r.commandId !== '')).toBe(true);
});
