/**
 * A queued submission the vendor refuses when it goes, under the vendor's real limit of 2 calls
 * per device and rolling minute (docs/decisions/007-device-call-budget.md, sections 2 and 4), on a
 * stack the spec starts (e2e/support/budget-stack.ts): another client of the account sent a
 * command straight to the vendor that powerdeck does not know of; the device's calls spent, the
 * operator's submission over that window is queued, and when the sandbox clock reaches its slot
 * the vendor refuses it. The device form's "not sent yet" line then says refused, with the
 * vendor's reason in words, and the bell has a notification of it.
 */
import { test, expect } from '@playwright/test';
import { E2E_BUDGET_SANDBOX_PORT } from '../../playwright.config.ts';
import { startBudgetStack, type BudgetStack } from '../support/budget-stack.ts';
import { bindSite, signIn } from '../support/fixtures.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DEVICE = 'BAT-EU-001-A';
const VENDOR = `http://127.0.0.1:${E2E_BUDGET_SANDBOX_PORT}/eu`;

let stack: BudgetStack;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  stack = await startBudgetStack();
});

test.afterAll(async () => {
  await stack?.stop();
});

/**
 * Sends a command to the vendor as another client of the partner account would, not through
 * powerdeck: one call of the device in the vendor's limit.
 */
async function sendStraightToVendor(window: { startMs: number; endMs: number }): Promise<void> {
  const token = await fetch(`${VENDOR}/api/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'demo-eu',
      client_secret: 'demo-eu-secret',
    }).toString(),
  });
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const sent = await fetch(`${VENDOR}/api/openapi/v1/device/${DEVICE}/commands`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      powerControl: { targetBatteryPowerW: 2000 },
      startTime: new Date(window.startMs).toISOString(),
      endTime: new Date(window.endMs).toISOString(),
    }),
  });
  expect(sent.status).toBe(202);
}

/** The vendor's reads of a device's history counted since the stats were cleared. */
function historyReads(stats: { byRoute: Record<string, number> }): number {
  return Object.entries(stats.byRoute)
    .filter(([route]) => route.startsWith('eu GET ') && route.includes(':deviceId/commands'))
    .reduce((sum, [, count]) => sum + count, 0);
}

test('a queued submission the vendor refuses when it goes: the form says refused with the reason, and the bell tells it', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  await page.getByRole('link', { name: DEVICE, exact: true }).click();
  await expect(page.getByRole('heading', { name: new RegExp(DEVICE) })).toBeVisible();

  // The form's window: an hour from its start, each next one following on from the last sent.
  const startHint = page.getByText(/^UTC \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/).first();
  const [, day, time] = /^UTC (\S+) (\S+)$/.exec((await startHint.textContent()) ?? '') ?? [];
  const firstStartMs = Date.parse(`${day}T${time}:00Z`);
  expect(firstStartMs).toBeGreaterThan(0);

  // Another client's command overlaps the third window; powerdeck does not know of it.
  await sendStraightToVendor({
    startMs: firstStartMs + 2 * HOUR_MS + 10 * MINUTE_MS,
    endMs: firstStartMs + 2 * HOUR_MS + 20 * MINUTE_MS,
  });
  // A minute on, the vendor counts none of the device's calls. The device page asked for a range
  // of its history that binding did not read: the BFF reads it with the device's next free call,
  // and a minute later both calls are free again for the operator's submissions.
  await stack.sandbox.clearStats();
  await stack.sandbox.advanceClock(MINUTE_MS + 1_000);
  await expect
    .poll(async () => historyReads(await stack.sandbox.stats()), { timeout: 15_000 })
    .toBeGreaterThan(0);
  await stack.sandbox.advanceClock(MINUTE_MS + 1_000);

  const power = page.getByLabel('Target battery power (W)', { exact: true });
  const submit = page.getByRole('button', { name: 'Submit command' });
  const status = page.getByRole('status').filter({ hasText: /^Command / });
  for (const sent of ['first', 'second']) {
    await power.fill('-3000');
    await submit.click();
    await expect(status, `the ${sent} command is sent at once`).toContainText('Command submitted');
    await expect(status).not.toContainText('not sent yet');
    const text = (await status.textContent()) ?? '';
    await power.fill('');
    // A new input clears the answer of the last submission.
    await expect(page.getByText(text)).toHaveCount(0);
  }
  // The device's two calls of this minute are spent: the third submission is queued.
  await power.fill('-3000');
  await submit.click();
  await expect(status).toContainText(/^Command not sent yet\. Queued: it goes at \d{4}-/);
  await expect(status).toContainText(
    "because the device's calls to the vendor for this minute are spent",
  );

  // The sandbox clock reaches the device's next free call: it goes, and the vendor refuses it.
  await stack.sandbox.advanceClock(90_000);
  await expect(status).toHaveText(
    /^Command refused by the vendor when it went\. The window overlaps (another )?command (\S+ )?of BAT-EU-001-A, which is waiting or running\./,
    { timeout: 30_000 },
  );
  await expect(status).not.toContainText('not sent yet');

  // The bell tells it, with the reason in words.
  const bell = page.getByRole('button', { name: /^Notifications/ });
  await expect(bell).toHaveAccessibleName('Notifications, 1 unread', { timeout: 15_000 });
  await bell.click();
  const inbox = page.getByRole('list', { name: 'Notifications, newest first' });
  await expect(inbox.getByRole('listitem').first()).toContainText(
    `Queued command for ${DEVICE} refused by the vendor`,
  );
  await expect(inbox.getByRole('listitem').first()).toContainText(
    /The window overlaps (another )?command (\S+ )?of BAT-EU-001-A/,
  );
});
