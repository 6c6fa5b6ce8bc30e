import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';

/*
 * An upstream outage during a submission, as a new operator met it: the command was reported
 * refused while its outcome was unknown, and "Try again" was refused after the outage ended.
 * An open outcome is a state ("not known yet, checking"), settled by itself once the vendor
 * answers; no refusal is ever shown.
 */

const SITE = 'PLANT-EU-001';
const DEVICE = 'BAT-EU-001-A';
const TARGET_W = '-2345';

/** Commands the upstream holds for `deviceId` over the next two days, read through the BFF. */
async function commandsOf(
  request: APIRequestContext,
  deviceId: string,
): Promise<{ id: string; powerControl: { targetBatteryPowerW?: number } }[]> {
  const startTime = new Date(Date.now() - 3_600_000).toISOString();
  const endTime = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const response = await request.get(
    `/api/devices/${deviceId}/commands?startTime=${startTime}&endTime=${endTime}`,
  );
  if (response.status() !== 200) return [];
  return ((await response.json()) as { commands: [] }).commands;
}

/**
 * Records the text of every alert the page ever shows, even one gone by the next check. The
 * toasts' library gives every toast the alert role, so a success toast (the undo offer of the
 * command just scheduled) is no refusal and is left out.
 */
async function recordAlerts(page: Page): Promise<() => Promise<string[]>> {
  // A string: this file is typed for Node, the script runs in the page.
  await page.addInitScript(`
    window.__alerts = [];
    const seen = (node) => {
      if (!(node instanceof Element)) return;
      const alerts = [...(node.matches('[role=alert]') ? [node] : []), ...node.querySelectorAll('[role=alert]')];
      for (const alert of alerts) {
        if (alert.closest('.toast-success')) continue;
        const text = (alert.textContent || '').trim();
        if (text) window.__alerts.push(text);
      }
    };
    new MutationObserver((records) => {
      for (const record of records) {
        if (record.type === 'childList') record.addedNodes.forEach(seen);
        else seen(record.target.parentElement ?? record.target);
      }
    }).observe(document, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['role'] });
  `);
  return () => page.evaluate<string[]>('window.__alerts');
}

/**
 * Moves the page's clock to the next check of an open outcome, when `checking` says when it goes
 * ("checking again in 35 s"): the page waits out the server's Retry-After, else 2 s doubling to
 * 30 s, on its own clock, which a test need not wait out in real time. Nothing else is due
 * meanwhile: no answer is awaited while the page waits for its next check.
 */
async function skipToNextCheck(page: Page, checking: Locator): Promise<void> {
  const text = await checking.textContent({ timeout: 1_000 }).catch(() => null);
  const seconds = /checking again in (\d+) s/.exec(text ?? '')?.[1];
  if (seconds !== undefined) await page.clock.fastForward(Number(seconds) * 1_000);
}

test('an outage (sandbox 503s, then healed) ends in the command’s real state with no refusal shown', async ({
  page,
}) => {
  test.setTimeout(150_000);
  // The page's clock is Playwright's, so the checks' growing waits pass without waiting.
  await page.clock.install();
  const alertsSeen = await recordAlerts(page);
  await signIn(page);
  await bindSite(page, SITE);
  await page
    .getByRole('region', { name: new RegExp(SITE) })
    .getByRole('link', { name: DEVICE, exact: true })
    .click();
  await expect(page.getByRole('heading', { name: new RegExp(DEVICE) })).toBeVisible();
  const target = page.getByLabel('Target battery power (W)', { exact: true });
  await target.fill(TARGET_W);

  const checking = page.getByRole('status').filter({ hasText: 'Outcome not known yet' });
  await sandboxAdmin.setFaults({ errorRate: 1, errorStatus: 503 });
  try {
    let tries = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith(`/api/devices/${DEVICE}/commands`))
        tries += 1;
    });
    await page.getByRole('button', { name: 'Submit command' }).click();
    await expect(checking).toBeVisible({ timeout: 30_000 });
    await expect(checking).toContainText(/checking (again in \d+ s|now)/);
    await expect(page.getByRole('button', { name: 'Stop checking' })).toBeVisible();
    await expect(target).toHaveValue(TARGET_W);
    // Still checking after more tries than the quick retries that used to end in a refusal.
    await expect
      .poll(
        async () => {
          await skipToNextCheck(page, checking);
          return tries;
        },
        { timeout: 60_000 },
      )
      .toBeGreaterThanOrEqual(4);
    await expect(checking).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
  } finally {
    await sandboxAdmin.setFaults({});
  }

  // Healed: without a reload, the page ends in the command's real state.
  const submitted = page.getByRole('status').filter({ hasText: 'Command submitted' });
  // In real time: the server holds the first try's entry for its lease (three upstream timeouts
  // and 5 s, on the BFF's own clock) and answers "still being sent" until then.
  await expect(submitted).toBeVisible({ timeout: 90_000 });
  await expect(checking).toHaveCount(0);
  const commandId = /Command submitted: (\S+)/.exec((await submitted.textContent()) ?? '')?.[1];
  expect(commandId).toBeTruthy();
  await expect(page.getByRole('row').filter({ hasText: commandId ?? '' })).toBeVisible({
    timeout: 30_000,
  });

  // The vendor holds exactly one such command.
  await expect
    .poll(
      async () =>
        (await commandsOf(page.request, DEVICE)).filter(
          (command) => command.powerControl.targetBatteryPowerW === Number(TARGET_W),
        ).length,
      { timeout: 30_000 },
    )
    .toBe(1);
  const held = (await commandsOf(page.request, DEVICE)).filter(
    (command) => command.powerControl.targetBatteryPowerW === Number(TARGET_W),
  );
  expect(held.map((command) => command.id)).toEqual([commandId]);

  await expect(page.locator('[role=alert]:not(.toast-success [role=alert])')).toHaveCount(0);
  expect(await alertsSeen()).toEqual([]);
});
