import type { Page } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { followFleetJobToEnd, startShortFleetJob } from './support/fleet-job.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';
import { expectNoSeriousAxeViolations } from './support/axe.ts';
import { screenshotPath } from './support/screenshots.ts';

/*
 * The pages at the two window sizes operators use, as <page>-<width>x<height>.png (stable names,
 * linked from the README, written to docs/screenshots/ when asked: e2e/support/screenshots.ts),
 * and the layout checks that go with them: nothing wider than the window, the work in view.
 *
 * Each flow runs once: its page is brought to each state once, then shown at each size (and
 * colour scheme) in turn with the checks repeated at each; reaching the same state again per size
 * and scheme took four times as long and checked nothing more.
 */

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;

const shot = (page: Page, name: string) =>
  page.screenshot({
    path: screenshotPath(
      `${name}-${page.viewportSize()?.width}x${page.viewportSize()?.height}.png`,
    ),
  });

const COLOUR_SCHEMES = ['light', 'dark'] as const;

/**
 * Shows the loaded page at `viewport` in `colorScheme`, as a window resized or a system switched
 * to dark would, and waits two frames: the page's resize and scheme listeners have run, and the
 * timeline's canvas has redrawn, before a check or a picture.
 */
async function showAs(
  page: Page,
  viewport: (typeof VIEWPORTS)[number],
  colorScheme: (typeof COLOUR_SCHEMES)[number] = 'light',
): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize(viewport);
  await page.evaluate(
    'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
  );
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** `ms` rounded up to a whole minute, as a UTC timestamp without milliseconds. */
const utcMinute = (ms: number) =>
  new Date(Math.ceil(ms / MINUTE_MS) * MINUTE_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Submits a command through the BFF, as the page would; returns its ID. */
async function submit(
  page: Page,
  deviceId: string,
  fromMs: number,
  toMs: number,
  powerControl: Record<string, number>,
): Promise<string> {
  const response = await page.request.post(`/api/devices/${deviceId}/commands`, {
    headers: { 'X-CSRF': '1', Origin: new URL(page.url()).origin },
    data: { powerControl, startTime: utcMinute(fromMs), endTime: utcMinute(toMs) },
  });
  expect(response.status()).toBe(202);
  return ((await response.json()) as { id: string }).id;
}

/**
 * Commands for the timeline's pictures on PLANT-EU-001 (B and C) and PLANT-EU-100: long and
 * short windows, one cancelled by the operator, so labels inside, beside and as a mark show.
 */
async function seedTimeline(page: Page): Promise<void> {
  const now = Date.now();
  await submit(page, 'BAT-EU-001-B', now + 1 * HOUR_MS, now + 1.3 * HOUR_MS, {
    targetBatteryPowerW: 2000,
  });
  const cancelled = await submit(page, 'BAT-EU-001-B', now + 3 * HOUR_MS, now + 7 * HOUR_MS, {
    targetBatteryPowerW: -2500,
    chargeCutoffSocPercent: 80,
  });
  const cancel = await page.request.put(`/api/devices/BAT-EU-001-B/commands/${cancelled}/cancel`, {
    headers: { 'X-CSRF': '1', Origin: new URL(page.url()).origin },
  });
  expect(cancel.status()).toBe(200);
  await submit(page, 'BAT-EU-001-C', now + 0.5 * HOUR_MS, now + 9 * HOUR_MS, {
    targetBatteryPowerW: -1500,
    chargeCutoffSocPercent: 95,
  });
  for (const [i, device] of ['BAT-EU-100-01', 'BAT-EU-100-02', 'BAT-EU-100-04'].entries())
    await submit(page, device, now + (2 + i) * HOUR_MS, now + (5 + 2 * i) * HOUR_MS, {
      targetBatteryPowerW: 3000 - 1000 * i,
      dischargeCutoffSocPercent: 20,
    });
}

/** Opens the timeline from the navigation and waits for its rows and a bar. */
async function openTimeline(page: Page): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Timeline' })
    .click();
  await expect(page.getByRole('rowheader', { name: /BAT-EU-001-A/ })).toBeAttached();
  await expect(page.getByRole('gridcell', { name: /^Office battery: / }).first()).toBeAttached();
  await page.mouse.move(0, 0);
}

/** True when nothing on the page is wider than the window (no sideways scrolling). */
// String expressions: this file is typed for Node; they run in the page.
const fitsWidth = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');

/** Whether the element is entirely inside the window as it is scrolled now. */
async function inView(page: Page, name: string): Promise<boolean> {
  const box = await page.getByRole('button', { name, exact: true }).boundingBox();
  const size = page.viewportSize();
  return Boolean(box && size && box.y >= 0 && box.y + box.height <= size.height);
}

test('sign-in, sites, device, history and batch pages at both sizes', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/sign-in');
  await expect(page.getByRole('heading', { name: 'Sign in to powerdeck' })).toBeVisible();
  for (const viewport of VIEWPORTS) {
    await showAs(page, viewport);
    expect(await inView(page, 'Sign in')).toBe(true);
    expect(await fitsWidth(page)).toBe(true);
    await shot(page, 'sign-in');
  }

  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  await bindSite(page, 'PLANT-EU-100');
  for (const viewport of VIEWPORTS) {
    await showAs(page, viewport);
    await page.getByRole('heading', { name: 'Sites', level: 1 }).scrollIntoViewIfNeeded();
    expect(await fitsWidth(page)).toBe(true);
    await page.mouse.move(0, 0);
    await shot(page, 'sites');
  }

  await page.getByRole('link', { name: 'BAT-EU-001-A', exact: true }).click();
  // The run's first device page: on a loaded machine its first reads took more than 10 s once,
  // the page showing its loading bar meanwhile.
  await expect(page.getByRole('heading', { name: /BAT-EU-001-A/ })).toBeVisible({
    timeout: 20_000,
  });
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('-3000');
  await page.getByLabel('Charge cut-off SoC (%)', { exact: true }).fill('90');
  await page.getByRole('button', { name: 'Submit command' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'received' })).toBeVisible();
  for (const viewport of VIEWPORTS) {
    await showAs(page, viewport);
    await page.evaluate('window.scrollTo(0, 0)');
    expect(await fitsWidth(page)).toBe(true);
    await shot(page, 'device');
  }

  // The history around now, where the command just sent lies.
  const nowMs = Date.now();
  await page.goto(
    `/sites/PLANT-EU-001/devices/BAT-EU-001-A/history?range=custom&from=${utcMinute(nowMs - 12 * HOUR_MS)}&to=${utcMinute(nowMs + 12 * HOUR_MS)}`,
  );
  await expect(page.locator('#history-count')).toContainText(/1 command between/, {
    timeout: 15_000,
  });
  for (const viewport of VIEWPORTS) {
    await showAs(page, viewport);
    await expect(page.getByRole('figure').first()).toBeVisible();
    expect(await fitsWidth(page)).toBe(true);
    await page.mouse.move(0, 0);
    await shot(page, 'history');
  }

  // A batch over ten devices of PLANT-EU-100, later in the day.
  const now = Date.now();
  const batch = await page.request.post('/api/batches', {
    headers: { 'X-CSRF': '1', Origin: new URL(page.url()).origin },
    data: {
      devices: Array.from({ length: 10 }, (_, i) => `BAT-EU-100-${String(i + 11)}`),
      command: {
        powerControl: { targetBatteryPowerW: -2000 },
        startTime: utcMinute(now + 10 * HOUR_MS),
        endTime: utcMinute(now + 12 * HOUR_MS),
      },
    },
  });
  expect(batch.status()).toBe(202);
  const { batchCommandId } = (await batch.json()) as { batchCommandId: string };
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Batches' })
    .click();
  await expect(page.getByRole('heading', { name: 'Batches', level: 1 })).toBeVisible();
  for (const viewport of VIEWPORTS) {
    await showAs(page, viewport);
    await expect(page.getByText(batchCommandId).first()).toBeVisible();
    expect(await fitsWidth(page)).toBe(true);
    await page.mouse.move(0, 0);
    await shot(page, 'batches');
  }

  await page.goto(`/batches/${batchCommandId}`);
  await expect(page.getByRole('heading', { name: /Batch / })).toBeVisible();
  await expect(page.getByTestId('count-received').locator('dd')).toHaveText('10');
  for (const viewport of VIEWPORTS) {
    await showAs(page, viewport);
    expect(await fitsWidth(page)).toBe(true);
    await page.mouse.move(0, 0);
    await shot(page, 'batch');
  }

  await page.goto('/batches/new');
  await expect(page.getByRole('heading', { name: 'New batch' })).toBeVisible();
  for (const viewport of VIEWPORTS) {
    await showAs(page, viewport);
    expect(await fitsWidth(page)).toBe(true);
    await shot(page, 'batch-new');
  }
});

test.describe('1280x720', () => {
  test.use({ viewport: { width: 1280, height: 720 } });

  test("the timeline's new-command dialog fits the window with Submit in view", async ({
    page,
  }) => {
    await signIn(page);
    await bindSite(page, 'PLANT-EU-001');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Timeline' })
      .click();
    const grid = page.getByRole('grid', { name: 'Command timeline' });
    await expect(page.getByRole('rowheader', { name: /BAT-EU-001-A/ })).toBeAttached();
    await grid.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New command' });
    await expect(dialog).toBeVisible();
    const box = await dialog.boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= 720).toBe(true);
    expect(await inView(page, 'Submit command')).toBe(true);
    expect(await inView(page, 'Close')).toBe(true);
    await page.screenshot({ path: screenshotPath('timeline-new-command-1280x720.png') });
  });
});

/** Page coordinates of instant `ms` on the `deviceRow`th device row of the first site. */
async function timelinePoint(page: Page, deviceRow: number, ms: number) {
  const canvas = page.getByTestId('timeline-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('timeline canvas not visible');
  const originMs = Number(await canvas.getAttribute('data-origin-ms'));
  const msPerPx = Number(await canvas.getAttribute('data-ms-per-px'));
  // Geometry of src/client/features/timeline/lib/draw.ts and rows.ts: label column 200 px, axis
  // 44 px, a site row 26 px, device rows 34 px.
  return { x: box.x + 200 + (ms - originMs) / msPerPx, y: box.y + 44 + 26 + 34 * deviceRow + 17 };
}

test("the timeline, a window's menu and a drag's readout, light and dark, at both sizes", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  await bindSite(page, 'PLANT-EU-100');
  await seedTimeline(page);
  await openTimeline(page);
  const now = Date.now();
  for (const colorScheme of COLOUR_SCHEMES)
    for (const viewport of VIEWPORTS) {
      await showAs(page, viewport, colorScheme);
      const suffix = colorScheme === 'dark' ? '-dark' : '';
      await expect(
        page.getByRole('gridcell', { name: /^Office battery: / }).first(),
      ).toBeAttached();
      await page.mouse.move(0, 0);
      expect(await fitsWidth(page)).toBe(true);
      if (colorScheme === 'dark')
        // The canvas follows the theme: the grid's background is the dark surface, not white.
        await expect
          .poll(async () => {
            const [red, green, blue] = await page.evaluate<number[]>(
              `Array.from(document.querySelector('[data-testid="timeline-canvas"]').getContext('2d')
                .getImageData(4 * devicePixelRatio, 60 * devicePixelRatio, 1, 1).data)`,
            );
            return (red ?? 255) + (green ?? 255) + (blue ?? 255);
          })
          .toBeLessThan(3 * 80);
      await shot(page, `timeline${suffix}`);
      if (colorScheme === 'dark') await expectNoSeriousAxeViolations(page);

      // The menu of Office battery's long window, opened by a right-click on it.
      const office = await timelinePoint(page, 2, now + 4 * HOUR_MS);
      await page.mouse.click(office.x, office.y, { button: 'right' });
      const menu = page.getByRole('menu');
      await expect(
        menu.getByRole('menuitem', { name: 'Duplicate to devices or days…' }),
      ).toBeVisible();
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, `timeline-menu${suffix}`);
      await page.keyboard.press('Escape');
      await expect(menu).toHaveCount(0);

      // A window being drawn on Hall A battery, its readout beside the pointer.
      const from = await timelinePoint(page, 0, now + 2 * HOUR_MS);
      const to = await timelinePoint(page, 0, now + 3.5 * HOUR_MS);
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(to.x, to.y, { steps: 8 });
      await expect(page.getByTestId('timeline-readout')).toHaveText(/ · 1 h 30 min$/);
      await shot(page, `timeline-readout${suffix}`);
      await page.mouse.up();
      const dialog = page.getByRole('dialog', { name: 'New command' });
      await dialog.getByRole('button', { name: 'Close' }).click();
      await expect(dialog).toBeHidden();
    }
});

/** The Australian demo client: its PLANT-AU-001, Adelaide Depot, is on the vendor's UTC+9:30. */
const DEMO_AU = { region: 'Australia', clientId: 'demo-au', clientSecret: 'demo-au-secret' };

test("a site on the vendor's fixed offset says so, and its zone is set in the dialog, at both sizes", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, DEMO_AU);
  // The BFF keeps a zone set by an earlier test of this run (the sandbox reset does not).
  const cleared = await page.request.delete('/api/sites/PLANT-AU-001/time-zone', {
    headers: { 'X-CSRF': '1', Origin: new URL(page.url()).origin },
  });
  expect([200, 404]).toContain(cleared.status());
  await bindSite(page, 'PLANT-AU-001');
  // Each size from the vendor's offset and back to it: the notice, the dialog, the save.
  for (const viewport of VIEWPORTS) {
    // A fresh page, so the first size's notices are gone before the second's are looked for.
    if (viewport !== VIEWPORTS[0]) await page.reload();
    await showAs(page, viewport);
    const site = page.getByRole('region', { name: /Adelaide Depot/ });
    const notice = site.locator('.site-clock');
    await expect(notice).toContainText(
      'Times for Adelaide Depot are on a fixed UTC+09:30 clock, which does not follow daylight saving time.',
    );
    await notice.scrollIntoViewIfNeeded();
    expect(await fitsWidth(page)).toBe(true);
    await page.mouse.move(0, 0);
    await shot(page, 'site-clock-offset');

    // The notice's one button, whose words change with the clock (the same element stays).
    const opener = notice.getByRole('button');
    await expect(opener).toHaveText("Set the site's time zone");
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Time zone of Adelaide Depot' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('searchbox', { name: 'Find a time zone' })).toBeFocused();
    // The zones that fit Australia and UTC+9:30 come first: the first, Adelaide, by keyboard.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(dialog.getByRole('region', { name: 'What changes' })).toContainText(
      '14:00 on the fixed clock is 15:00 in Australia/Adelaide in summer',
    );
    const box = await dialog.boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= viewport.height).toBe(true);
    expect(await inView(page, 'Save time zone')).toBe(true);
    await shot(page, 'site-time-zone-dialog');

    // Saved, the site's times follow at once and focus is back on the notice.
    await dialog.getByRole('button', { name: 'Save time zone' }).click();
    await expect(dialog).toBeHidden();
    await expect(notice).toContainText('Times for Adelaide Depot are on Australia/Adelaide.');
    await expect(opener).toBeFocused();
    await expect(opener).toHaveText('Change the time zone');
    await expect(page.getByText('Adelaide Depot: times now on Australia/Adelaide')).toBeVisible();
    await expectNoSeriousAxeViolations(page);

    // Back to the vendor's offset, so the next run starts from it.
    await opener.click();
    await page
      .getByRole('dialog', { name: 'Time zone of Adelaide Depot' })
      .getByRole('button', { name: "Use the vendor's offset again" })
      .click();
    await expect(notice).toContainText('are on a fixed UTC+09:30 clock');
  }
});

/**
 * The overview with a line in every section: a command executing (its window begun on the
 * sandbox clock), others starting soon, one cancelled by the operator, a batch under way, and
 * PLANT-EU-002's offline battery.
 */
async function seedOverview(page: Page): Promise<void> {
  const now = Date.now();
  const headers = { 'X-CSRF': '1', Origin: new URL(page.url()).origin };
  await submit(page, 'BAT-EU-001-A', now + 5 * MINUTE_MS, now + 3 * HOUR_MS, {
    targetBatteryPowerW: -3000,
    chargeCutoffSocPercent: 90,
  });
  await submit(page, 'BAT-EU-001-B', now + 2 * HOUR_MS, now + 4 * HOUR_MS, {
    targetBatteryPowerW: 2000,
  });
  const cancelled = await submit(page, 'BAT-EU-001-C', now + 1 * HOUR_MS, now + 2 * HOUR_MS, {
    targetBatteryPowerW: 1500,
  });
  const cancel = await page.request.put(`/api/devices/BAT-EU-001-C/commands/${cancelled}/cancel`, {
    headers,
  });
  expect(cancel.status()).toBe(200);
  const batch = await page.request.post('/api/batches', {
    headers,
    data: {
      devices: Array.from({ length: 10 }, (_, i) => `BAT-EU-100-${String(i + 11)}`),
      command: {
        powerControl: { targetBatteryPowerW: -2000 },
        startTime: utcMinute(now + 4 * HOUR_MS),
        endTime: utcMinute(now + 5 * HOUR_MS),
      },
    },
  });
  expect(batch.status()).toBe(202);
  await sandboxAdmin.advanceClock(10 * MINUTE_MS);
}

test('the overview, light and dark, at both sizes', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  await bindSite(page, 'PLANT-EU-002');
  await bindSite(page, 'PLANT-EU-100');
  await seedOverview(page);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Overview' })
    .click();
  for (const colorScheme of COLOUR_SCHEMES)
    for (const viewport of VIEWPORTS) {
      await showAs(page, viewport, colorScheme);
      // The ledger outlives the sandbox's reset between tests: earlier tests' commands may show too.
      await expect(
        page
          .getByRole('region', { name: /^Executing now/ })
          .getByRole('listitem')
          .filter({ hasText: 'BAT-EU-001-A' }),
      ).not.toHaveCount(0);
      await expect(
        page
          .getByRole('region', { name: /^Offline or faulted/ })
          .getByRole('listitem')
          .filter({ hasText: 'BAT-EU-002-B' }),
      ).toHaveCount(1);
      expect(await fitsWidth(page)).toBe(true);
      await page.mouse.move(0, 0);
      await shot(page, colorScheme === 'dark' ? 'overview-dark' : 'overview');
      await expectNoSeriousAxeViolations(page);
    }
});

test('a batch with a partial cancel and a resend, light and dark, at both sizes', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  // A command in the way of BAT-EU-001-A: its batch command is cancelled at once.
  const blocker = await page.request.post('/api/devices/BAT-EU-001-A/commands', {
    headers: { 'X-CSRF': '1', Origin: baseURL ?? '' },
    data: {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: utcMinute(Date.now() + 2 * MINUTE_MS),
      endTime: utcMinute(Date.now() + 3 * HOUR_MS),
    },
  });
  expect(blocker.status()).toBe(202);
  await page.goto('/batches/new');
  await page.getByLabel('Site', { exact: true }).selectOption({ value: 'PLANT-EU-001' });
  await page.getByRole('button', { name: 'Select all visible (3)' }).click();
  await page.getByLabel('Target battery power (W)').fill('-2000');
  await page.getByRole('button', { name: 'Submit batch to 3 devices' }).click();
  await expect(page).toHaveURL(/\/batches\/(?!new$)[^/]+$/);
  const row = (deviceId: string) => page.locator(`tr[data-device="${deviceId}"]`);
  await expect(row('BAT-EU-001-A')).toContainText('Its window overlapped', { timeout: 15_000 });
  await expect(row('BAT-EU-001-B')).toContainText('Received (pending)', { timeout: 15_000 });
  await page.getByRole('checkbox', { name: 'Select BAT-EU-001-B' }).check();
  await page.getByRole('button', { name: 'Cancel selected (1)…' }).click();
  await page.getByRole('button', { name: 'Cancel 1 device command' }).click();
  await expect(page.getByText('All 1 selected device commands were cancelled.')).toBeVisible();
  await expect(row('BAT-EU-001-B')).toContainText('Cancelled by an operator');
  await page.getByRole('button', { name: 'Select failed (1)' }).click();
  await page
    .getByRole('button', { name: 'Dismiss' })
    .first()
    .click({ timeout: 2000 })
    .catch(() => undefined);
  for (const colorScheme of COLOUR_SCHEMES)
    for (const viewport of VIEWPORTS) {
      await showAs(page, viewport, colorScheme);
      await page.getByRole('heading', { name: 'Devices' }).scrollIntoViewIfNeeded();
      await shot(page, `batch-actions${colorScheme === 'dark' ? '-dark' : ''}`);
    }
  await page.getByRole('button', { name: 'Resend to selected failed (1)…' }).click();
  const precheck = page.getByRole('region', { name: 'Pre-check' });
  await expect(precheck).toContainText('flagged', { timeout: 10_000 });
  for (const colorScheme of COLOUR_SCHEMES)
    for (const viewport of VIEWPORTS) {
      await showAs(page, viewport, colorScheme);
      await precheck.scrollIntoViewIfNeeded();
      await shot(page, `batch-resend${colorScheme === 'dark' ? '-dark' : ''}`);
    }
});

/**
 * A fleet job over PLANT-EU-001 and PLANT-EU-100 (63 devices) whose window has passed: every
 * device completed, as the page learns by itself; one job, pictured light and dark at both sizes.
 */
test('a fleet job with every device final, light and dark, at both sizes', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize(VIEWPORTS[0]);
  await signIn(page);
  const sites = ['PLANT-EU-001', 'PLANT-EU-100'];
  for (const siteId of sites) await bindSite(page, siteId);
  const { jobId, endTime } = await startShortFleetJob(page, sites);
  await page.goto(`/fleet-jobs/${jobId}`);
  await followFleetJobToEnd(page, 63, endTime);
  await expect(page.getByRole('figure', { name: 'Devices over time' })).toContainText(
    'completed 63',
  );
  await page.mouse.move(0, 0);
  for (const colorScheme of COLOUR_SCHEMES)
    for (const viewport of VIEWPORTS) {
      await showAs(page, viewport, colorScheme);
      await page.evaluate('window.scrollTo(0, 0)');
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, colorScheme === 'dark' ? 'fleet-job-final-dark' : 'fleet-job-final');
    }
  await expectNoSeriousAxeViolations(page);
});
