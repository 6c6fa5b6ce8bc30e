import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import Papa from 'papaparse';
import { chartSvg, expectNoOverlap, expectTextsInside } from '../support/charts.ts';
import { bindSite, signIn } from '../support/fixtures.ts';

// The `large` fixture (src/sandbox/fixtures/large-fixture.ts): 30 days of generated history per
// device, every status and cancellation reason. This stack is never reset; binding is idempotent.
const SITE_ID = 'PLANT-EU-201';
const DEVICE_ID = 'BAT-EU-201-001';

test('a device history over 30 days: cancelled filter, chart and table agree, CSV, 31 days refused', async ({
  page,
}) => {
  await signIn(page);
  await bindSite(page, SITE_ID);

  await page.goto(`/sites/${SITE_ID}/devices/${DEVICE_ID}/history?range=30d`);
  await expect(page.getByRole('heading', { name: /Command history of/ })).toBeVisible();
  const count = page.locator('#history-count');
  await expect(count).toContainText(/\d+ commands? between/, { timeout: 20_000 });

  // 30 days of dense history: unique power labels, date ticks apart, no label cut off.
  for (const name of ['Commanded power and limits', 'Outcomes per day']) {
    const svg = chartSvg(page.getByRole('figure', { name }));
    const yLabels = await svg.locator('.recharts-yAxis-tick-labels text').allTextContents();
    expect(new Set(yLabels).size).toBe(yLabels.length);
    const xLabels = svg.locator('.recharts-xAxis-tick-labels text');
    expect(await xLabels.count()).toBeGreaterThanOrEqual(3);
    for (const label of await xLabels.allTextContents())
      expect(label).toMatch(/^\d{1,2} [A-Z][a-z]{2}$/);
    await expectNoOverlap(xLabels);
    await expectTextsInside(svg);
  }

  await page.getByLabel('Status').selectOption('cancelled');
  await expect(page).toHaveURL(/status=cancelled/);
  await expect(count).toContainText(/match the filters/);
  const matched = Number(/^(\d+)/.exec((await count.textContent()) ?? '')?.[1]);
  expect(matched).toBeGreaterThan(0);

  // The outcomes chart counts the same commands as the table.
  const outcomes = page.getByRole('figure', { name: 'Outcomes per day' });
  await expect(outcomes).toHaveAttribute('data-command-count', String(matched));
  await expect(outcomes).toContainText(new RegExp(`of ${matched} commands?`));
  const pageRows = page.locator('table.history-table tbody tr');
  await expect(pageRows).toHaveCount(Math.min(matched, 100));
  await expect(pageRows.filter({ hasText: 'Cancelled' })).toHaveCount(Math.min(matched, 100));

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export table as CSV' }).click(),
  ]);
  const csv = await readFile((await download.path()) ?? '', 'utf8');
  const parsed = Papa.parse<Record<string, string>>(csv.trim(), { header: true });
  expect(parsed.data).toHaveLength(matched);
  for (const row of parsed.data) {
    expect(row.status).toBe('cancelled');
    expect(row.deviceId).toBe(DEVICE_ID);
    expect(row.startTimeUtc).toMatch(/Z$/);
    expect(row.startTimeSite).toMatch(/[+-]\d{2}:\d{2}$/);
    expect(row.cancelReasonWords).not.toBe('');
  }

  await page.getByLabel('Range').selectOption('custom');
  // The range fields are typed segment by segment on the site's clock, year first.
  for (const [name, digits] of [
    ['From', '202609010000'],
    ['To', '202610020000'],
  ] as const) {
    await page
      .getByRole('group', { name, exact: true })
      .getByRole('spinbutton', { name: /year/i })
      .focus();
    await page.keyboard.type(digits);
  }
  await page.getByRole('button', { name: 'Show range' }).click();
  await expect(page.getByRole('alert')).toContainText(/Range refused: .*31 days.*at most 30 days/);
});
