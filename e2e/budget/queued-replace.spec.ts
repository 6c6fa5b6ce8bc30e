/**
 * A replace under the vendor's real limit, 2 calls per device and rolling minute
 * (docs/decisions/007-device-call-budget.md, section 2), on a stack the spec starts and restarts
 * (e2e/support/budget-stack.ts): with one call of the device left, the operator is asked before
 * anything is sent; queued, the replace survives a restart of the BFF and goes, cancel and
 * submission together, when the sandbox clock reaches the device's next free calls.
 */
import { test, expect, type Page } from '@playwright/test';
import { startBudgetStack, type BudgetStack } from '../support/budget-stack.ts';
import { bindSite, signIn } from '../support/fixtures.ts';
import { drag } from '../support/timeline.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const CANCEL_ROUTE = 'eu PUT /devices/:deviceId/commands/:commandId/cancel';
const SUBMIT_ROUTE = 'eu POST /device/:deviceId/commands';

let stack: BudgetStack;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  stack = await startBudgetStack();
});

test.afterAll(async () => {
  await stack?.stop();
});

const bar = (page: Page, name: RegExp) => page.getByRole('gridcell', { name });

/** The cancels and submissions the vendor received since the counts were last cleared. */
async function vendorWrites() {
  const { byRoute } = await stack.sandbox.stats();
  return { cancels: byRoute[CANCEL_ROUTE] ?? 0, submissions: byRoute[SUBMIT_ROUTE] ?? 0 };
}

async function openTimeline(page: Page) {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Timeline' })
    .click();
  await expect(page.getByRole('heading', { name: 'Timeline' })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: /BAT-EU-001-A/ })).toBeAttached();
}

test('a replace with one call left asks first, waits queued across a BFF restart, and goes at the next slot', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  // Binding read each device's commands once (one call each); a minute on, both calls are free.
  await stack.sandbox.advanceClock(MINUTE_MS);
  await openTimeline(page);

  // A command on Hall A battery spends one of its two calls.
  const now = Date.now();
  await drag(page, 0, now + 2 * HOUR_MS, now + 3 * HOUR_MS);
  const form = page.getByRole('dialog', { name: 'New command' });
  await form.getByLabel('Target battery power (W)').fill('-3000');
  await form.getByRole('button', { name: 'Submit command' }).click();
  const submitted = page.getByRole('status').filter({ hasText: /submitted for Hall A battery/ });
  await expect(submitted).toBeVisible();
  const oldId = (await submitted.textContent())?.match(/cmd_[A-Za-z0-9_-]+/)?.[0] ?? '';
  expect(oldId).not.toBe('');
  const oldBar = bar(page, /^Hall A battery: 3 kW charge, .*Received/);
  await expect(oldBar).toBeAttached();
  const oldText = (await oldBar.textContent()) ?? '';
  await stack.sandbox.clearStats();

  // The replace needs two calls, a cancel and a submission, with one left: asked before sending.
  await drag(page, 0, now + 2.5 * HOUR_MS, now + 5 * HOUR_MS);
  const ask = page.getByRole('alertdialog', { name: 'Replace when the device can take it?' });
  await expect(ask).toBeVisible();
  await expect(ask).toContainText('Nothing is sent yet.');
  await expect(ask).toContainText(`command ${oldId} stays as it is until then`);
  await expect(ask).toContainText(/goes at \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(Europe\/Berlin\), UTC /);
  expect(await vendorWrites()).toEqual({ cancels: 0, submissions: 0 });
  await ask.getByRole('button', { name: 'Queue the replace' }).click();
  await expect(
    page.getByRole('status').filter({
      hasText: `Replace of command ${oldId} on Hall A battery not sent yet. Queued: it goes at`,
    }),
  ).toBeVisible();
  // Queued whole: the old window is still in force, marked with its queued cancel, and the new
  // window is drawn as queued beside it; nothing reached the vendor.
  const stillInForce = bar(page, /^Hall A battery: 3 kW charge, .*Received/);
  await expect(stillInForce).toContainText(oldText);
  await expect(stillInForce).toContainText(/, cancel queued, goes at /);
  const queuedWindow = bar(page, /^Hall A battery: queued change, not sent yet, 3 kW charge/);
  await expect(queuedWindow).toBeAttached();
  expect(await vendorWrites()).toEqual({ cancels: 0, submissions: 0 });

  // The BFF restarts on its database; after a reload the change is still waiting.
  await stack.restart();
  await page.goto('/changes');
  await expect(page.getByRole('heading', { name: 'Queued changes', level: 1 })).toBeVisible();
  const waiting = page.getByRole('list', { name: 'Queued changes' }).getByRole('listitem');
  await expect(waiting).toHaveCount(1);
  await expect(waiting).toContainText(`Replace: cancel command ${oldId}, then send`);
  await expect(waiting).toContainText(/Goes at \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(Europe\/Berlin\)/);
  await expect(waiting.getByRole('button', { name: 'Withdraw' })).toBeVisible();
  expect(await vendorWrites()).toEqual({ cancels: 0, submissions: 0 });

  // The sandbox clock reaches the device's next free calls: cancel and submission go.
  const changes = (await (await page.request.get('/api/changes?waiting=true')).json()) as {
    changes: { goesAt: string }[];
  };
  const goesAt = Date.parse(changes.changes[0]?.goesAt ?? '');
  expect(goesAt).toBeGreaterThan(0);
  const sandboxNow = (await stack.sandbox.now()).getTime();
  if (goesAt > sandboxNow) await stack.sandbox.advanceClock(goesAt - sandboxNow);
  await expect(waiting).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByText('No change is waiting.')).toBeVisible();

  await openTimeline(page);
  await expect(
    bar(page, /^Hall A battery: 3 kW charge, .*Cancelled \(by operator\)$/),
  ).toBeAttached();
  const newBar = bar(page, /^Hall A battery: 3 kW charge, .*Received/);
  await expect(newBar).toBeAttached();
  await expect(newBar).not.toHaveText(oldText);
  await expect(newBar).not.toContainText('cancel queued');
  await expect(queuedWindow).toHaveCount(0);
  await expect(page.getByRole('alert').filter({ hasText: /Refused|not sent|failed/i })).toHaveCount(
    0,
  );
  // The vendor was sent exactly one cancel and one submission for the replace.
  expect(await vendorWrites()).toEqual({ cancels: 1, submissions: 1 });
});
