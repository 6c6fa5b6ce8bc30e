import { readFile } from 'node:fs/promises';
import Papa from 'papaparse';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { followFleetJobToEnd, progressCount, startShortFleetJob } from './support/fleet-job.ts';

/**
 * A fleet job's page follows its devices to the end on its own (docs/fleet-dispatch.md,
 * Progress): once the command's window has passed on the vendor's clock, every device reads
 * completed on the page opened once, never reloaded, and the outcomes CSV says the same. An
 * operator saw such a page stop at "Received 59, Completed 4", each reload learning a few more.
 */

const SITES = ['PLANT-EU-001', 'PLANT-EU-100'];
/** PLANT-EU-001's 3 devices and PLANT-EU-100's 60, as many as the operator's job had. */
const DEVICES = 63;

test('a fleet job page shows every device final without reload', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  for (const siteId of SITES) await bindSite(page, siteId);
  const { jobId, endTime } = await startShortFleetJob(page, SITES);

  await page.goto(`/fleet-jobs/${jobId}`);
  await expect(page.getByRole('heading', { name: /Fleet job / })).toBeVisible();
  // Marks this document: a reload would lose it.
  await page.evaluate('window.fleetFinalMark = 1');
  await followFleetJobToEnd(page, DEVICES, endTime);
  await expect(page.getByRole('status').filter({ hasText: 'batches sent or tried' })).toContainText(
    'Every batch sent. 2 of 2 batches',
  );
  for (const label of ['Received', 'Executing', 'Cancelled', 'Failed'])
    await expect(progressCount(page, label)).toHaveText('0');
  await expect(progressCount(page, 'Sent')).toHaveText(String(DEVICES));
  await expect(page.getByText('Not confirmed yet', { exact: true })).toHaveCount(0);

  // Every device's line says so too, in each batch's fold.
  const batches = page.getByRole('region', { name: 'Batches' });
  for (const fold of await batches.getByText(/^\d+ devices$/).all()) await fold.click();
  await expect(batches.locator('.fleet-devices li')).toHaveCount(DEVICES);
  // Each device's own line; its verdict (once judged) shows under it.
  const lines = batches.locator('.fleet-devices li .fleet-device-line');
  await expect(lines.filter({ hasText: /: Completed$/ })).toHaveCount(DEVICES);

  // The CSV says the states the page shows.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download outcomes (CSV)' }).click(),
  ]);
  const csv = await readFile((await download.path()) ?? '', 'utf8');
  const rows = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data;
  expect(rows).toHaveLength(DEVICES);
  expect(
    rows.filter((r) => r.Status !== 'Completed').map((r) => `${r.Device}: ${r.Status}`),
  ).toEqual([]);

  expect(await page.evaluate('window.fleetFinalMark')).toBe(1);
});
