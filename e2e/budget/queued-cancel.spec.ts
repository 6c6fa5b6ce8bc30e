/**
 * A cancel under the vendor's real limit, 2 calls per device and rolling minute
 * (docs/decisions/007-device-call-budget.md, section 2), on the stack of e2e/support/budget-stack.ts:
 * with the device's calls spent, a cancel from the device page is queued; the command's row then
 * says when it goes and offers to withdraw it, not to cancel again, and the vendor gets one
 * cancel when the sandbox clock reaches the device's next call.
 */
import { test, expect } from '@playwright/test';
import { startBudgetStack, type BudgetStack } from '../support/budget-stack.ts';
import { bindSite, signIn } from '../support/fixtures.ts';

const MINUTE_MS = 60_000;
const SITE = 'PLANT-EU-001';
const DEVICE = 'BAT-EU-001-A';
const CANCEL_ROUTE = 'eu PUT /devices/:deviceId/commands/:commandId/cancel';

let stack: BudgetStack;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  stack = await startBudgetStack();
});

test.afterAll(async () => {
  await stack?.stop();
});

test('a queued cancel says in its row when it goes and offers withdraw, and the vendor gets one cancel', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signIn(page);
  await bindSite(page, SITE);
  // Binding read each device's commands once; a minute on, both calls are free.
  await stack.sandbox.advanceClock(MINUTE_MS);
  const nowMs = (await stack.sandbox.now()).getTime();
  const at = (ms: number) =>
    new Date(Math.ceil(ms / MINUTE_MS) * MINUTE_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const submit = (fromMin: number) =>
    page.request.post(`/api/devices/${DEVICE}/commands`, {
      headers: { 'X-CSRF': '1', Origin: baseURL ?? '' },
      data: {
        powerControl: { targetBatteryPowerW: 1000 },
        startTime: at(nowMs + fromMin * MINUTE_MS),
        endTime: at(nowMs + (fromMin + 30) * MINUTE_MS),
      },
    });
  // Two submissions spend the device's calls of this minute (the second may wait queued itself).
  const first = await submit(120);
  expect(first.status()).toBe(202);
  const id = ((await first.json()) as { id: string }).id;
  expect([200, 202]).toContain((await submit(180)).status());

  await page.goto(`/sites/${SITE}/devices/${DEVICE}`);
  const row = page.getByRole('row').filter({ hasText: id });
  await row.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Cancel command' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'not sent yet' })).toBeVisible();
  await expect(row).toContainText(/Cancel queued, goes at \d\d:\d\d:\d\d/);
  await expect(row.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  await expect(row.getByRole('button', { name: 'Withdraw' })).toBeVisible();

  // The sandbox clock reaches the cancel's slot: it goes, once, and the row follows.
  await stack.sandbox.clearStats();
  const waiting = (await (
    await page.request.get(`/api/changes?waiting=true&deviceId=${DEVICE}`)
  ).json()) as { changes: { kind: string; goesAt?: string }[] };
  const cancelGoesAt = waiting.changes.find((change) => change.kind === 'cancel')?.goesAt;
  const goesAtMs = Date.parse(cancelGoesAt ?? '');
  expect(goesAtMs).toBeGreaterThan(0);
  const sandboxNow = (await stack.sandbox.now()).getTime();
  if (goesAtMs > sandboxNow) await stack.sandbox.advanceClock(goesAtMs - sandboxNow);
  await expect(row).toContainText('Cancelled by an operator', { timeout: 30_000 });
  await expect(row).not.toContainText('Cancel queued');
  await expect(row.getByRole('button', { name: 'Withdraw' })).toHaveCount(0);
  const { byRoute } = await stack.sandbox.stats();
  expect(byRoute[CANCEL_ROUTE] ?? 0).toBe(1);
});
