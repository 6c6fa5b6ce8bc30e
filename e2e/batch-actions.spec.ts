import { readFile } from 'node:fs/promises';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { technicalWords, VISIBLE_TEXT } from './support/operator-words.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';
import type { Page } from '@playwright/test';

const SITE = 'PLANT-EU-001';
const BLOCKED = 'BAT-EU-001-A';
const KEPT = 'BAT-EU-001-C';
const CANCELLED = 'BAT-EU-001-B';
const MINUTE_MS = 60_000;

const onMinute = (ms: number) =>
  new Date(Math.ceil(ms / MINUTE_MS) * MINUTE_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The page's visible text holds no HTTP method, path, header or field name. */
async function expectOperatorWords(page: Page) {
  const { text, typed } = await page.evaluate<{ text: string; typed: string[] }>(VISIBLE_TEXT);
  expect(technicalWords(text, typed).map((w) => `${w.what}: ${w.context}`)).toEqual([]);
}

test('a partial cancel and a resend on a batch', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await bindSite(page, SITE);

  // An active command on one device whose window covers the batch's default window: the vendor
  // cancels that device's batch command at once (its window overlaps).
  const now = await sandboxAdmin.now();
  const headers = { 'X-CSRF': '1', Origin: baseURL ?? '' };
  const blocker = await page.request.post(`/api/devices/${BLOCKED}/commands`, {
    headers,
    data: {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: onMinute(now.getTime() + 2 * MINUTE_MS),
      endTime: onMinute(now.getTime() + 180 * MINUTE_MS),
    },
  });
  expect(blocker.status()).toBe(202);
  const blockerId = ((await blocker.json()) as { id: string }).id;

  await page.goto('/batches/new');
  await page.getByLabel('Site', { exact: true }).selectOption({ value: SITE });
  await page.getByRole('button', { name: 'Select all visible (3)' }).click();
  await page.getByLabel('Target battery power (W)').fill('-2000');
  await page.getByRole('button', { name: 'Submit batch to 3 devices' }).click();
  await expect(page).toHaveURL(/\/batches\/(?!new$)[^/]+$/);
  const firstBatch = new URL(page.url()).pathname;

  const row = (deviceId: string) => page.locator(`tr[data-device="${deviceId}"]`);
  await expect(row(BLOCKED)).toContainText('Its window overlapped another command', {
    timeout: 15_000,
  });
  await expect(row(CANCELLED)).toContainText('Received (pending)', { timeout: 15_000 });
  await expect(row(KEPT)).toContainText('Received (pending)');
  await expect(row(CANCELLED).getByRole('link', { name: CANCELLED, exact: true })).toHaveAttribute(
    'href',
    `/sites/${SITE}/devices/${CANCELLED}`,
  );
  await expect(row(CANCELLED).getByRole('link', { name: `History of ${CANCELLED}` })).toBeVisible();

  // A partial cancel: two devices chosen (one by keyboard), only the one still waiting is sent.
  const counter = page.getByRole('status').filter({ hasText: 'devices selected' });
  await expect(counter).toHaveText('0 of 3 devices selected');
  await page.getByRole('checkbox', { name: `Select ${CANCELLED}` }).focus();
  await page.keyboard.press('Space');
  await page.getByRole('checkbox', { name: `Select ${BLOCKED}` }).check();
  await expect(counter).toHaveText('2 of 3 devices selected');
  await page.getByRole('button', { name: 'Cancel selected (1)…' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Cancel 1 device command?' });
  await expect(dialog).toContainText(`Cancelled, each device on its own: ${CANCELLED}.`);
  await expect(dialog).toContainText(
    `Left as they are: ${BLOCKED} (its command is already cancelled).`,
  );
  await expect(dialog).toContainText('a cancel cannot be undone');
  await dialog.getByRole('button', { name: 'Cancel 1 device command' }).click();

  await expect(page.getByText('All 1 selected device commands were cancelled.')).toBeFocused();
  await expect(row(CANCELLED)).toContainText('Cancelled by an operator');
  await expect(row(CANCELLED).locator('td').last()).toHaveText('Cancelled');
  await expect(row(KEPT)).toContainText('Received (pending)');
  await expectOperatorWords(page);

  // The CSV says what the table says.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download devices (CSV)' }).click();
  const csv = await readFile((await (await download).path()) ?? '', 'utf8');
  const lines = csv.split('\r\n');
  // The verdict's columns (docs/verification.md) come after the reason, as in the table.
  expect(lines[0]).toBe(
    'Device,Command,Status,Reason,Verdict,"Delivered (kWh, discharge positive)","Commanded (kWh, discharge positive)",Share measured,Last cancel',
  );
  expect(lines.find((l) => l.startsWith(CANCELLED))).toMatch(
    /,Cancelled,Cancelled by an operator,[^,]*,[^,]*,[^,]*,[^,]*,Cancelled$/,
  );
  expect(lines.find((l) => l.startsWith(BLOCKED))).toContain(
    'Its window overlapped another command of the same device',
  );

  // The failed device gets the command again as a new batch, through the composer's pre-check:
  // while the blocking command stands, the pre-check flags it.
  const resend = async () => {
    await page.getByRole('button', { name: 'Select failed (1)' }).click();
    await expect(counter).toHaveText('1 of 3 devices selected');
    await page.getByRole('button', { name: 'Resend to selected failed (1)…' }).click();
    await expect(page).toHaveURL(/\/batches\/new$/);
    await expect(page.getByText(/Sending the command of batch .* again/)).toContainText(
      'to the 1 device that failed there',
    );
    await expect(page.locator('.batch-counter')).toHaveText('1 of 50 devices selected');
    await expect(page.getByLabel('Target battery power (W)')).toHaveValue('-2000');
    return page.getByRole('region', { name: 'Pre-check' });
  };
  await expect(await resend()).toContainText('1 of 1 devices flagged', { timeout: 10_000 });
  await expectOperatorWords(page);

  // Once the blocking command is cancelled (here through the product API, as another operator
  // might), the resend's pre-check is clear and the new batch goes out.
  await page.goBack();
  // The device takes two calls a minute (its budget): a fresh minute for the cancel.
  await sandboxAdmin.advanceClock(MINUTE_MS);
  const cancelled = await page.request.put(`/api/devices/${BLOCKED}/commands/${blockerId}/cancel`, {
    headers,
  });
  expect(cancelled.status()).toBe(200);
  await page.reload();
  await expect(row(BLOCKED)).toContainText('Its window overlapped another command');
  await expect(await resend()).toContainText('checked: no overlap', { timeout: 10_000 });
  await expectOperatorWords(page);
  await sandboxAdmin.advanceClock(MINUTE_MS);
  await page.getByRole('button', { name: 'Submit batch to 1 device' }).click();
  await expect(page).toHaveURL(/\/batches\/(?!new$)[^/]+$/);
  expect(new URL(page.url()).pathname).not.toBe(firstBatch);
  await expect(row(BLOCKED)).toContainText('Received (pending)', { timeout: 15_000 });
  await expect(page.locator('tr[data-device]')).toHaveCount(1);
});
