import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import Papa from 'papaparse';
import { bindSite, signIn } from '../support/fixtures.ts';
import { screenshotPath } from '../support/screenshots.ts';

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
  // Right after a hundred devices were bound, beside a second browser test process on a loaded
  // machine, the page's loading bar ran for over 20 s before it opened.
  await expect(page.getByRole('heading', { name: 'Fleet jobs' })).toBeVisible({ timeout: 60_000 });
  await page.getByRole('link', { name: 'New fleet job' }).click();
  await expect(page.getByRole('heading', { name: 'New fleet job' })).toBeVisible();
  for (const siteId of SITES)
    await page.getByRole('checkbox', { name: new RegExp(siteId) }).check();
  await expect(page.getByText('100 devices in 2 batches')).toBeVisible();
  await page.getByLabel('Batches per minute').fill('60');
  await page.getByLabel('Stop when failed or cancelled exceeds (%)').fill('100');
  await page.getByLabel('Target battery power (W)').fill('3000');
  await page.screenshot({ path: screenshotPath('fleet-job-new-1440x900.png'), fullPage: true });
  await page.getByRole('button', { name: 'Start fleet job for 100 devices' }).click();
  // Nothing goes before the operator confirms the devices, window and pace.
  const confirm = page.getByRole('alertdialog', { name: 'Start a fleet job for 100 devices?' });
  await expect(confirm).toContainText('100 devices: BAT-');
  await expect(confirm).toContainText('2 batches of up to 50 devices, 60 a minute');
  await expect(confirm).toContainText('It never stops by itself');
  await confirm.getByRole('button', { name: 'Start sending to 100 devices' }).click();

  await expect(page.getByRole('heading', { name: /Fleet job / })).toBeVisible();
  const state = page.getByRole('status').filter({ hasText: 'batches sent or tried' });
  await expect(state).toContainText('Every batch sent. 2 of 2 batches', { timeout: 90_000 });
  const progress = page.getByRole('region', { name: 'Progress' });
  await expect(progress).toContainText('Devices100');
  // Each device's command is confirmed from its history by the read model's reads after the
  // batch (the vendor's batch answer names none): 100 devices take a few passes.
  await expect(progress).toContainText('Sent100', { timeout: 90_000 });
  // The devices over time: the chart's words and its table say the same counts.
  const chart = progress.getByRole('figure', { name: 'Devices over time' });
  await expect(chart).toContainText('Sent 100, completed 0');
  await expect(chart.getByRole('img', { name: /Devices over time/ })).toBeVisible();
  const batches = page.getByRole('region', { name: 'Batches' });
  await expect(batches.getByRole('row')).toHaveCount(3);
  // The first batch's fold opens on its 50 devices (exact: the fleet actions' words above the
  // table say "at most 50 devices" too).
  await batches.getByText('50 devices', { exact: true }).first().click();
  await expect(batches.getByText('BAT-EU-202-001')).toBeVisible();
  await page.screenshot({ path: screenshotPath('fleet-job-1440x900.png'), fullPage: true });

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download outcomes (CSV)' }).click(),
  ]);
  const csv = await readFile((await download.path()) ?? '', 'utf8');
  const rows = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data;
  expect(rows).toHaveLength(100);
  // The CSV's columns are the page's words (src/client/features/fleet/lib/fleet-csv.ts).
  expect(new Set(rows.map((r) => r.Device)).size).toBe(100);
  expect(rows.every((r) => (r.Command ?? '') !== '')).toBe(true);
});

test('a dispatch plan with an overlap inside it and one against a held command: checked, sent, recognised when sent again', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await bindSite(page, 'PLANT-EU-204');

  // A window 3 days ahead (after the fixture's seeded commands), a day further for each retry, as
  // a retry meets the same stack with the earlier try's commands; on a 5-minute boundary;
  // ...-001 already holds a command there.
  const days = 3 + test.info().retry;
  const startMs = Math.ceil((Date.now() + days * 86_400_000) / 300_000) * 300_000;
  const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}Z`;
  const held = await page.request.post('/api/devices/BAT-EU-204-001/commands', {
    headers: { 'X-CSRF': '1', Origin: baseURL ?? '' },
    data: {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(startMs).toISOString(),
      endTime: new Date(startMs + 3_600_000).toISOString(),
    },
  });
  expect(held.status()).toBe(202);
  const plan = Papa.unparse(
    [
      ['deviceId', 'start_utc', 'end_utc', 'targetBatteryPowerW'],
      ['BAT-EU-204-001', utc(startMs + 1_800_000), utc(startMs + 5_400_000), '3000'],
      ['BAT-EU-204-002', utc(startMs), utc(startMs + 3_600_000), '3000'],
      ['BAT-EU-204-002', utc(startMs + 1_800_000), utc(startMs + 5_400_000), '3000'],
      ['BAT-EU-204-003', utc(startMs), utc(startMs + 3_600_000), '3000'],
    ],
    { newline: '\r\n' },
  );
  const upload = async () => {
    await expect(page.getByText('No plan chosen yet.')).toBeVisible();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Choose a plan file…' }).press('Enter');
    await (
      await chooser
    ).setFiles({ name: 'plan.csv', mimeType: 'text/csv', buffer: Buffer.from(plan) });
  };

  await page.getByRole('link', { name: 'Fleet jobs' }).click();
  await page.getByRole('link', { name: 'Send a dispatch plan' }).click();
  await expect(page.getByRole('heading', { name: 'Dispatch plan', exact: true })).toBeVisible();
  await upload();
  const rows = page.getByRole('table', { name: 'Checked rows' });
  await expect(page.getByText('2 of 4 rows can be sent; 2 refused.')).toBeVisible();
  await expect(rows.getByRole('row', { name: /^2 BAT-EU-204-001/ })).toContainText(
    'Refused: its window overlaps a command of this device that is waiting to start',
  );
  await expect(rows.getByRole('row', { name: /^4 BAT-EU-204-002/ })).toContainText(
    'Refused: its window overlaps line 3 for the same device',
  );
  await expect(rows.getByRole('row', { name: /^5 BAT-EU-204-003/ })).toContainText('Can be sent');
  // The plan on the timeline: a ghost bar per row beside the held command, refused ones explained
  // to screen readers and, on keyboard focus, in a card.
  const timeline = page.getByRole('grid', { name: 'Command timeline' });
  await expect(
    timeline.getByRole('gridcell', {
      name: /Plan line 5, not sent yet, 3 kW discharge, .*can be sent$/,
    }),
  ).toBeAttached();
  await expect(
    timeline.getByRole('gridcell', {
      name: /Plan line 2, not sent yet, .*refused: its window overlaps a command/,
    }),
  ).toBeAttached();
  // To the row's first window, then right along the row to the plan's line 2 (earlier tests of
  // this file may have left more commands on the row before it); the pointer leaves the grid
  // first, as a hovered bar's card would take the place of the focused one's.
  await page.mouse.move(0, 0);
  await timeline.focus();
  for (let i = 0; i < 12; i += 1) await timeline.press('ArrowLeft');
  const card = page.getByRole('tooltip');
  for (let i = 0; i < 12 && !((await card.textContent()) ?? '').includes('Plan line 2'); i += 1)
    await timeline.press('ArrowRight');
  await expect(card).toContainText('Plan line 2');
  await expect(card).toContainText(
    'Refused: its window overlaps a command of this device that is waiting to start',
  );
  await page.screenshot({ path: screenshotPath('fleet-plan-1440x900.png'), fullPage: true });
  // The rollout is the operator's: a faster rate and an abort rule, as the job then says.
  await page.getByLabel('Batches per minute').fill('120');
  await page.getByLabel('Stop when failed or cancelled exceeds (%)').fill('50');
  await page.getByRole('button', { name: 'Drop 2 refused and send 2 rows' }).click();
  const confirmPlan = page.getByRole('alertdialog', { name: 'Send 2 rows of this plan?' });
  await expect(confirmPlan).toContainText('120 a minute');
  await expect(confirmPlan).toContainText('more than 50% of the devices sent so far');
  await confirmPlan.getByRole('button', { name: 'Send 2 rows now' }).click();

  await expect(page.getByRole('heading', { name: /Fleet job / })).toBeVisible();
  await expect(page.getByText('120 batches per minute, stopped when more than 50%')).toBeVisible();
  const state = page.getByRole('status').filter({ hasText: 'batches sent or tried' });
  await expect(state).toContainText('Every batch sent.', { timeout: 60_000 });

  // The same plan again: the two rows sent are recognised, nothing is left to send.
  await page.goto('/fleet-jobs/plan');
  await upload();
  await expect(page.getByText('0 of 4 rows can be sent; 4 refused.')).toBeVisible();
  await expect(rows.getByRole('row', { name: /^3 BAT-EU-204-002/ })).toContainText(
    'already sent: the device holds this command',
  );
  await expect(page.getByText('No row of this plan can be sent.')).toBeVisible();
});
