import { test, expect, bindSite, signIn } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';

/**
 * The overview (docs/architecture.md, Overview) follows the vendor's clock and the account's
 * changes on an open page: the sandbox clock moves a command from "starts soon" to "executing
 * now", and a cancel moves it to the operators' cancels, apart from what needs attention and
 * with its reason in words, without a reload.
 */

const MINUTE_MS = 60_000;
const DEVICE = 'BAT-EU-001-A';

test('the overview updates without reload when a command changes state', async ({ page }) => {
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  const origin = new URL(page.url()).origin;
  const headers = { 'x-csrf': '1', origin };
  const nowMs = (await sandboxAdmin.now()).getTime();
  const submitted = await page.request.post(`/api/devices/${DEVICE}/commands`, {
    headers,
    data: {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(nowMs + 20 * MINUTE_MS).toISOString().replace(/\.\d+Z$/, 'Z'),
      endTime: new Date(nowMs + 80 * MINUTE_MS).toISOString().replace(/\.\d+Z$/, 'Z'),
    },
  });
  expect(submitted.ok(), await submitted.text()).toBe(true);
  const { id: commandId } = (await submitted.json()) as { id: string };

  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Overview' })
    .click();
  await expect(page.getByRole('heading', { name: 'Overview: Europe', level: 1 })).toBeVisible();
  const executing = page.getByRole('region', { name: /^Executing now/ });
  const upcoming = page.getByRole('region', { name: /^Starts in the next 6 hours/ });
  const ended = page.getByRole('region', { name: /^Needs attention/ });
  // This test's command (1 kW, the space perhaps a no-break one): the ledger keeps what earlier
  // tests refused on the device, which the overview lists for 24 hours whatever the sandbox's
  // reset forgot.
  const line = (section: typeof executing) =>
    section
      .getByRole('listitem')
      .filter({ hasText: DEVICE })
      .filter({ hasText: /(?<![\d.,])1\skW\b/ });

  await expect(line(upcoming)).toContainText('Hall A battery');
  await expect(line(upcoming)).toContainText('Europe/Berlin');
  await expect(executing.getByText('No device command is in its window now.')).toBeVisible();
  await expect(
    line(upcoming).getByRole('link', { name: `Hall A battery (${DEVICE})`, exact: true }),
  ).toHaveAttribute('href', `/sites/PLANT-EU-001/devices/${DEVICE}`);
  // Marks this document: a reload would lose it.
  await page.evaluate(() => {
    (globalThis as unknown as { overviewMark?: number }).overviewMark = 1;
  });

  await sandboxAdmin.advanceClock(30 * MINUTE_MS);
  await expect(line(executing)).toContainText('Hall A battery');
  await expect(upcoming.getByText(/No device command starts in the next 6 hours/)).toBeVisible();

  const cancelled = await page.request.put(`/api/devices/${DEVICE}/commands/${commandId}/cancel`, {
    headers,
  });
  expect(cancelled.ok(), await cancelled.text()).toBe(true);
  // An operator's cancel needs no attention: it is listed when asked for.
  const operatorCancels = ended.getByRole('radio', { name: /^Cancelled by an operator/ });
  await expect(operatorCancels).toHaveText(/\((?!0\))\d+\)/);
  await expect(line(ended)).toHaveCount(0);
  await operatorCancels.click();
  await expect(line(ended)).toContainText('Cancelled by an operator');
  await expect(executing.getByText('No device command is in its window now.')).toBeVisible();

  expect(
    await page.evaluate(() => (globalThis as unknown as { overviewMark?: number }).overviewMark),
  ).toBe(1);
});
