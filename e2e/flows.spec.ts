import type { APIRequestContext, Page } from '@playwright/test';
import { expectNoSeriousAxeViolations } from './support/axe.ts';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';
import { screenshotPath } from './support/screenshots.ts';

/*
 * Operator flows across screens, as a new operator met them: what happens right after a batch
 * is sent, when its answer is lost, and on its page afterwards; refusals, undo. Each page is
 * scanned with axe after its flow (no serious or critical violation).
 */

const SITE = 'PLANT-EU-001';
const DEVICE = 'BAT-EU-001-A';

/** Commands the upstream holds for `deviceId` over the next two days, read through the BFF. */
async function commandsOf(
  request: APIRequestContext,
  deviceId: string,
): Promise<{ id: string; status: string; batchCommandId?: string }[]> {
  const startTime = new Date(Date.now() - 3_600_000).toISOString();
  const endTime = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const response = await request.get(
    `/api/devices/${deviceId}/commands?startTime=${startTime}&endTime=${endTime}`,
  );
  expect(response.status()).toBe(200);
  return ((await response.json()) as { commands: { id: string; status: string }[] }).commands;
}

/** Opens the composer, selects the site's three devices and sets a target battery power. */
async function composeBatch(page: Page): Promise<void> {
  await page.goto('/batches/new');
  await page.getByLabel('Site', { exact: true }).selectOption({ value: SITE });
  await page.getByRole('button', { name: /Select all visible \(3\)/ }).click();
  await page.getByLabel('Target battery power (W)').fill('-2000');
  await expect(page.getByRole('region', { name: 'Pre-check' })).toContainText(
    'All 3 devices checked',
  );
}

/** The value of a fact of the batch page (`<dt>name</dt><dd>value</dd>`). */
const fact = (page: Page, name: string) =>
  page.locator('dl.facts dt', { hasText: name }).locator('xpath=following-sibling::dd[1]');

test('a batch whose answer was lost is sent once, and the operator lands on its page, focused', async ({
  page,
}) => {
  await signIn(page);
  await bindSite(page, SITE);
  await composeBatch(page);

  // The BFF accepts the first batch, but its answer never reaches the browser.
  const batchKeys: (string | null)[] = [];
  await page.route('**/api/batches', async (route) => {
    batchKeys.push(await route.request().headerValue('idempotency-key'));
    if (batchKeys.length === 1) {
      await route.fetch();
      await route.abort('connectionreset');
    } else await route.continue();
  });
  await page.getByRole('button', { name: 'Submit batch to 3 devices' }).click();

  await expect(page).toHaveURL(/\/batches\/(?!new$)[^/]+$/);
  const heading = page.getByRole('heading', { level: 1, name: /^Batch / });
  await expect(heading).toBeFocused();
  await expect(page.getByText(/flagged/)).toHaveCount(0);
  await expectNoSeriousAxeViolations(page);

  // One batch, sent once: every try carried one key, and each device holds one command of it.
  expect(batchKeys.length).toBeGreaterThanOrEqual(2);
  expect(new Set(batchKeys).size).toBe(1);
  expect(batchKeys[0]).toBeTruthy();
  // The vendor's batch answer names no command: the device's is found at the read model's first
  // read after the batch, a few seconds on.
  await expect
    .poll(async () => (await commandsOf(page.request, DEVICE)).map((c) => c.status), {
      timeout: 20_000,
    })
    .toEqual(['received']);
  const commands = await commandsOf(page.request, DEVICE);
  const batchId = new URL(page.url()).pathname.split('/').pop();
  expect(commands[0]?.batchCommandId).toBe(batchId);
});

test("a batch's times are on its site's clock whatever the route or the browser's zone", async ({
  page,
  browser,
  baseURL,
}) => {
  await signIn(page);
  await bindSite(page, SITE);
  await composeBatch(page);
  await page.getByRole('button', { name: 'Submit batch to 3 devices' }).click();
  await expect(page).toHaveURL(/\/batches\/(?!new$)[^/]+$/);
  const batchPath = new URL(page.url()).pathname;
  const submitted = (await fact(page, 'Submitted').textContent()) ?? '';
  const window = (await fact(page, 'Effective window').textContent()) ?? '';
  expect(submitted).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d \(Europe\/Berlin\), UTC /);
  expect(window).toContain('(Europe/Berlin)');
  expect(window).toContain('UTC');
  // Each value on its label's line, the window too: none falls away from its label.
  for (const label of ['Submitted', 'Devices', 'Power control', 'Effective window']) {
    const term = await page.locator('.facts dt', { hasText: label }).boundingBox();
    const value = await fact(page, label).boundingBox();
    expect(Math.abs((term?.y ?? 0) - (value?.y ?? 1000)), label).toBeLessThan(12);
  }
  expect(await fact(page, 'Power control').textContent()).toMatch(/ (charge|discharge)\b/);
  await page.screenshot({ path: screenshotPath('batch-after-submit.png'), fullPage: true });

  // The same session in a browser on another continent, opened afresh.
  const elsewhere = await browser.newContext({
    baseURL,
    timezoneId: 'America/New_York',
    storageState: await page.context().storageState(),
  });
  try {
    const there = await elsewhere.newPage();
    await there.goto(batchPath);
    await expect(fact(there, 'Submitted')).toHaveText(submitted);
    await expect(fact(there, 'Effective window')).toHaveText(window);
    await there.screenshot({
      path: screenshotPath('batch-after-reload-new-york.png'),
      fullPage: true,
    });

    await there.goto('/batches');
    const row = there.getByRole('row').filter({ has: there.locator(`a[href="${batchPath}"]`) });
    await expect(row).toContainText(submitted.replace(/, UTC .*$/, ''));
    await expectNoSeriousAxeViolations(there);
  } finally {
    await elsewhere.close();
  }
});

/**
 * What the BFF answers about the last batch and `deviceId`'s commands, for a failure message: a
 * confirmation that did not come says whether the batch's command was never read or not matched.
 */
async function whatTheBffKnows(request: APIRequestContext, deviceId: string): Promise<string> {
  const answers = await Promise.all(
    [
      '/api/ledger?kind=batch&limit=1',
      `/api/devices/${deviceId}/commands?startTime=${new Date(Date.now() - 3_600_000).toISOString()}&endTime=${new Date(Date.now() + 86_400_000).toISOString()}`,
    ].map(async (url) => {
      const response = await request.get(url).catch((error: unknown) => String(error));
      return typeof response === 'string'
        ? `${url}: ${response}`
        : `${url}: ${response.status()} ${(await response.text()).slice(0, 3000)}`;
    }),
  );
  return [`at ${new Date().toISOString()}`, ...answers].join('\n');
}

/** Texts an operator must never read: a spec section, the BFF, a timestamp as the wire writes it. */
async function expectNoInternalsOnScreen(page: Page): Promise<void> {
  const text = await page.locator('body').innerText();
  expect(text).not.toMatch(/\bspec\b/i);
  expect(text).not.toMatch(/\bBFF\b/);
  expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
}

test('a refused command is worded from its code on the site clock, takes focus, and goes once its cause is gone', async ({
  page,
  baseURL,
}) => {
  await signIn(page);
  await bindSite(page, SITE);
  // A waiting command whose window covers the device form's default window.
  const minute = 60_000;
  const at = (ms: number) =>
    new Date(Math.ceil(ms / minute) * minute).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const existing = await page.request.post(`/api/devices/${DEVICE}/commands`, {
    headers: { 'X-CSRF': '1', Origin: baseURL ?? '' },
    data: {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: at(Date.now() + 2 * minute),
      endTime: at(Date.now() + 180 * minute),
    },
  });
  expect(existing.status()).toBe(202);
  const conflictingId = ((await existing.json()) as { id: string }).id;

  await page.goto(`/sites/${SITE}/devices/${DEVICE}`);
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('-3000');
  await page.getByRole('button', { name: 'Submit command' }).click();

  const refusal = page.getByRole('alert').filter({ hasText: 'The command was not accepted.' });
  await expect(refusal).toContainText(`overlaps command ${conflictingId}`);
  await expect(refusal).toContainText('(Europe/Berlin)');
  await expect(refusal).toBeFocused();
  await expectNoInternalsOnScreen(page);
  await expectNoSeriousAxeViolations(page);

  // A later attempt that never leaves the browser does not sit under the old refusal.
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('');
  await expect(refusal).toHaveCount(0);
  await page.getByRole('button', { name: 'Submit command' }).click();
  await expect(page.getByRole('alert')).toContainText('Set at least one');
  await expect(refusal).toHaveCount(0);

  // Refused again, then the command in the way is cancelled: the refusal no longer holds.
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('-3000');
  await page.getByRole('button', { name: 'Submit command' }).click();
  await expect(refusal).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: conflictingId });
  await row.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Cancel command' }).click();
  await expect(row).toContainText('Cancelled by an operator');
  await expect(refusal).toHaveCount(0);

  await page.getByRole('button', { name: 'Submit command' }).click();
  const submitted = page.getByRole('status').filter({ hasText: 'Command submitted' });
  await expect(submitted).toBeVisible();
  await expect(submitted).toBeFocused();
  await expectNoInternalsOnScreen(page);
});

test('the batch composer says what is true of the selection, and a keyboard user skips the device list', async ({
  page,
  baseURL,
}) => {
  await signIn(page);
  await bindSite(page, SITE);
  await page.goto('/batches/new');
  // No device selected: no control is "not supported" by devices that are not there.
  await expect(page.getByText('Not supported by any selected device')).toHaveCount(0);
  await expect(page.getByText('Select devices to see their range.').first()).toBeVisible();

  await page.getByLabel('Site', { exact: true }).selectOption({ value: SITE });
  await page.getByRole('button', { name: /Select all visible \(3\)/ }).click();
  const precheck = page.getByRole('region', { name: 'Pre-check' });
  await expect(precheck).toContainText('All 3 devices checked');
  // No control set yet: the pre-check does not claim none is missing.
  await expect(precheck).not.toContainText('no missing control');
  await expectNoSeriousAxeViolations(page);

  await page.getByRole('link', { name: 'Skip to the command' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Command', exact: true })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Target battery power (W)', { exact: true })).toBeFocused();

  await page.getByLabel('Target battery power (W)', { exact: true }).fill('-2000');
  await page.getByRole('button', { name: 'Submit batch to 3 devices' }).click();
  await expect(page).toHaveURL(/\/batches\/(?!new$)[^/]+$/);
  const row = page.locator(`tr[data-device="${DEVICE}"]`);
  // The cell after the choice box and the device holds its command once the read model found it:
  // its read of the device's history waits its turn on the stack's one embedded database, beside
  // the verification and the fleet snapshot, and three browser test processes load the machine.
  const commandCell = row.locator('td').nth(1);
  await expect(commandCell)
    .toHaveText(/^cmd_/, { timeout: 45_000 })
    .catch(async (error: unknown) => {
      throw new Error(`${String(error)}\n${await whatTheBffKnows(page.request, DEVICE)}`);
    });
  const commandId = (await commandCell.textContent()) ?? '';
  const cancelled = await page.request.put(`/api/devices/${DEVICE}/commands/${commandId}/cancel`, {
    headers: { 'X-CSRF': '1', Origin: baseURL ?? '' },
  });
  expect(cancelled.status()).toBe(200);
  await page.reload();
  await expect(page.getByTestId('count-cancelled').locator('dd')).toHaveText('1');

  // The cancel dialog counts what is still to cancel, not every device of the batch.
  await page.getByRole('button', { name: 'Cancel batch' }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText(
    '2 of the 3 device commands are still received or executing (or not read or confirmed yet) and are cancelled; the other 1 already ended or were not found',
  );
  await expectNoInternalsOnScreen(page);
  await expectNoSeriousAxeViolations(page);
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Cancel batch' })).toBeFocused();

  // Sent, the cancel's results are its outcome, and take focus.
  await page.getByRole('button', { name: 'Cancel batch' }).click();
  await dialog.getByRole('button', { name: 'Cancel batch' }).click();
  await expect(page.getByRole('heading', { name: 'Batch cancel results' })).toBeFocused();
  await expectNoSeriousAxeViolations(page);
});

/** The ledger entries of `deviceId` newest first, as `GET /api/ledger` answers them. */
async function ledgerOf(request: APIRequestContext, deviceId: string) {
  const response = await request.get(`/api/ledger?deviceId=${deviceId}&limit=20`);
  expect(response.status()).toBe(200);
  return (
    (await response.json()) as {
      entries: { id: string; kind: string; commandId?: string; undoOf?: string }[];
    }
  ).entries;
}

test('undo after each schedule change: a submission is cancelled, a cancel is sent again, each recorded as an undo', async ({
  page,
}) => {
  await signIn(page);
  await bindSite(page, SITE);
  await page.goto(`/sites/${SITE}/devices/${DEVICE}`);
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('-3000');
  await page.getByRole('button', { name: 'Submit command' }).click();
  const submitted = page.getByRole('status').filter({ hasText: 'Command submitted' });
  await expect(submitted).toBeVisible();
  const commandId = (await submitted.textContent())?.match(/cmd_[\w-]+/)?.[0] ?? '';

  // The offer is reachable from the keyboard: F6 moves into the toasts.
  const undoButton = page.getByRole('button', { name: 'Undo', exact: true });
  await expect(undoButton).toBeVisible();
  // The pointer rests on the offer, which holds it (toasts pause while hovered): the picture and
  // the accessibility check below can take longer than its 10 s on a loaded machine.
  await page.getByRole('alertdialog').filter({ has: undoButton }).hover();
  await page.screenshot({ path: screenshotPath('undo-offer.png') });
  await expectNoSeriousAxeViolations(page);
  await page.keyboard.press('F6');
  for (let i = 0; i < 4 && !(await undoButton.evaluate((b) => b.matches(':focus'))); i++)
    await page.keyboard.press('Tab');
  await expect(undoButton).toBeFocused();
  await page.keyboard.press('Enter');

  const row = page.getByRole('row').filter({ hasText: commandId });
  await expect(row).toContainText('Cancelled by an operator');
  await expect(page.getByText(`Undone: command ${commandId} is cancelled.`)).toBeVisible();

  // Undo of a cancel sends the same command again, under a new ID. The device has had its two
  // calls to the vendor of this minute (the submission and its undo): the next starts a new one.
  await sandboxAdmin.advanceClock(60_000);
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('1500');
  await page.getByRole('button', { name: 'Submit command' }).click();
  await expect(submitted).not.toContainText(commandId);
  const secondId = (await submitted.textContent())?.match(/cmd_[\w-]+/)?.[0] ?? '';
  const secondRow = page.getByRole('row').filter({ hasText: secondId });
  await secondRow.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Cancel command' }).click();
  await expect(secondRow).toContainText('Cancelled by an operator');
  await sandboxAdmin.advanceClock(60_000);
  await page
    .getByRole('alertdialog', { name: /^Done: 1\.5 kW discharge on .+ cancelled$/ })
    .getByRole('button', { name: 'Undo', exact: true })
    .click();
  const resent = page.getByText(new RegExp(`Undone: command ${secondId} is sent again as cmd_`));
  await expect(resent).toBeVisible();
  const resentId = (await resent.textContent())?.match(/as (cmd_[\w-]+)/)?.[1] ?? '';
  await expect(page.getByRole('row').filter({ hasText: resentId })).toContainText('1.5 kW');

  // The ledger holds each undo as its own entry, naming the change it undoes.
  const entries = await ledgerOf(page.request, DEVICE);
  const entryOf = (kind: string, id: string) =>
    entries.find((entry) => entry.kind === kind && entry.commandId === id);
  const firstSubmit = entryOf('submit', commandId);
  const undoCancel = entries.find((e) => e.kind === 'cancel' && e.undoOf === firstSubmit?.id);
  expect(undoCancel?.commandId).toBe(commandId);
  const secondCancel = entryOf('cancel', secondId);
  expect(entryOf('submit', resentId)?.undoOf).toBe(secondCancel?.id);
  await expectNoInternalsOnScreen(page);
});

test('undo of a batch just sent cancels it, recorded as an undo; once its commands started, undo offers the batch cancel', async ({
  page,
}) => {
  await signIn(page);
  await bindSite(page, SITE);
  await composeBatch(page);
  await page.getByRole('button', { name: 'Submit batch to 3 devices' }).click();
  await expect(page).toHaveURL(/\/batches\/(?!new$)[^/]+$/);
  const batchId = new URL(page.url()).pathname.split('/').pop() ?? '';

  const offer = page.getByRole('alertdialog', { name: /^Done: Batch sent to 3 devices: / });
  const undoButton = offer.getByRole('button', { name: 'Undo', exact: true });
  await expect(undoButton).toBeVisible();
  // Undo waits until every device's command is confirmed, since an unconfirmed one may have
  // started: the read model finds them in its first read after the batch, a few seconds on. The
  // pointer rests on the offer meanwhile, which holds it (toasts pause while hovered): on a
  // loaded machine that read can come after the offer's 10 s.
  await offer.hover();
  for (const deviceId of ['BAT-EU-001-A', 'BAT-EU-001-B', 'BAT-EU-001-C'])
    await expect(page.locator(`tr[data-device="${deviceId}"] td`).nth(1)).toHaveText(/^cmd_/, {
      timeout: 20_000,
    });
  await page.keyboard.press('F6');
  for (let i = 0; i < 4 && !(await undoButton.evaluate((b) => b.matches(':focus'))); i++)
    await page.keyboard.press('Tab');
  await expect(undoButton).toBeFocused();
  await page.keyboard.press('Enter');

  await expect(
    page.getByText(`Undone: batch ${batchId} is cancelled, all 3 of its commands.`),
  ).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: DEVICE })).toContainText('Cancelled');
  expect((await commandsOf(page.request, DEVICE)).map((c) => c.status)).toEqual(['cancelled']);

  // The ledger holds the batch cancel as its own entry, naming the batch it undoes.
  const response = await page.request.get(`/api/ledger?batchCommandId=${batchId}&limit=10`);
  expect(response.status()).toBe(200);
  const { entries } = (await response.json()) as {
    entries: { id: string; kind: string; undoOf?: string }[];
  };
  const sent = entries.find((e) => e.kind === 'batch');
  expect(entries.find((e) => e.kind === 'batchCancel')?.undoOf).toBe(sent?.id);
  await expectNoInternalsOnScreen(page);

  // A batch whose commands have started is not undone: the toast says so and offers its cancel.
  await composeBatch(page);
  await page.getByRole('button', { name: 'Submit batch to 3 devices' }).click();
  await expect(page).toHaveURL(new RegExp(`/batches/(?!new$|${batchId}$)[^/]+$`));
  const secondId = new URL(page.url()).pathname.split('/').pop() ?? '';
  const secondUndo = page
    .getByRole('alertdialog', { name: /^Done: Batch sent to 3 devices: / })
    .last()
    .getByRole('button', { name: 'Undo', exact: true });
  await secondUndo.focus(); // a focused toast stays while the commands start
  await sandboxAdmin.advanceClock(15 * 60_000);
  await expect(page.getByRole('row').filter({ hasText: DEVICE })).toContainText('Executing');
  await secondUndo.press('Enter');
  const refused = page.getByRole('alertdialog', { name: 'Warning: Not undone' });
  await expect(refused).toContainText('Undo is no longer possible: 3 of 3 commands have started.');
  await refused.getByRole('link', { name: 'Cancel the batch…' }).click();
  await expect(page.getByRole('alertdialog', { name: `Cancel batch ${secondId}?` })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/batches/${secondId}$`));
});

test('Ctrl+Z on the timeline undoes the command just submitted there', async ({ page }) => {
  await signIn(page);
  await bindSite(page, SITE);
  await page.getByRole('link', { name: 'Timeline' }).click();
  const grid = page.getByRole('grid', { name: 'Command timeline' });
  await expect(page.getByRole('rowheader', { name: /BAT-EU-001-A/ })).toBeAttached();
  await grid.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'New command' });
  await expect(dialog.getByLabel('Target battery power (W)')).toBeFocused();
  await page.keyboard.type('-2000');
  await page.keyboard.press('Enter');
  const notice = page.getByRole('status').filter({ hasText: /submitted for Hall B battery/ });
  await expect(notice).toBeVisible();
  const commandId = (await notice.textContent())?.match(/cmd_[\w-]+/)?.[0] ?? '';

  await grid.focus();
  await page.keyboard.press('Control+z');
  await expect(page.getByText(`Undone: command ${commandId} is cancelled.`)).toBeVisible();
  await expect(
    page.getByRole('gridcell', { name: /^Hall B battery: 2 kW charge, .*Cancelled/ }),
  ).toBeAttached();
  await expectNoSeriousAxeViolations(page);
});
