import { randomUUID } from 'node:crypto';
import { FleetJobSchema } from '#domain/fleet-job.ts';
import { EventVerdictsAnswerSchema } from '#domain/verdict-answer.ts';
import type { Verdict } from '#domain/verdict.ts';
import type { Locator, Page } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import type { Behaviour } from '#sandbox/model/behaviours.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';
import { screenshotPath, stillForPicture } from './support/screenshots.ts';

const SITE = 'PLANT-EU-100';
const MINUTE_MS = 60_000;
const device = (n: number) => `BAT-EU-100-${String(n).padStart(2, '0')}`;

/**
 * What each of the site's first 20 devices does in the sandbox's model (src/sandbox/README.md,
 * Behaviours), and so the verdict each must get (docs/verification.md, Rules).
 */
const EXPECTED: Record<string, Verdict> = Object.fromEntries(
  Array.from({ length: 20 }, (_, index) => {
    const n = index + 1;
    const verdict: Verdict =
      n >= 11 && n <= 13
        ? 'notFollowing'
        : n === 14 || n === 15
          ? 'noData'
          : n === 16 || n === 17
            ? 'limitedBySoc'
            : n === 18 || n === 19
              ? 'limitedBySiteLimit'
              : 'delivered';
    return [device(n), verdict];
  }),
);

/**
 * The fleet job's 20 devices, the site's next 20 (the fixture seeds them `follows`), with
 * behaviours set by the test among the first batch's 10 so its fold shows each verdict.
 */
const FLEET_JOB_BEHAVIOURS: Record<string, Behaviour> = Object.fromEntries(
  Array.from({ length: 20 }, (_, index) => {
    const n = index + 21;
    const behaviour: Behaviour =
      n === 22 || n === 23
        ? 'ignoresCommands'
        : n === 25
          ? 'goesOffline'
          : n === 27
            ? 'nearCutoff'
            : n === 29
              ? 'siteLimited'
              : 'follows';
    return [device(n), behaviour];
  }),
);
/** The verdict each behaviour must get (docs/verification.md, Rules). */
const VERDICT_OF_BEHAVIOUR: Record<Behaviour, Verdict> = {
  follows: 'delivered',
  ignoresCommands: 'notFollowing',
  goesOffline: 'noData',
  nearCutoff: 'limitedBySoc',
  siteLimited: 'limitedBySiteLimit',
  faultsDuringCommand: 'cancelled',
};

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;

/**
 * The page at both window sizes, light and dark, as `<name>[-dark]-<width>x<height>.png`, with
 * `top` (when given) scrolled to the top of the window.
 */
async function shots(page: Page, name: string, top?: Locator): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const)
    for (const viewport of VIEWPORTS) {
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize(viewport);
      if (top) await top.evaluate((element) => element.scrollIntoView({ block: 'start' }));
      await stillForPicture(page);
      const scheme = colorScheme === 'dark' ? '-dark' : '';
      await page.screenshot({
        path: screenshotPath(`${name}${scheme}-${viewport.width}x${viewport.height}.png`),
      });
    }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The next 02:00 UTC: night at the site, so no PV changes what a site limit leaves. */
function nextNight(now: Date): Date {
  const night = new Date(now);
  night.setUTCHours(2, 0, 0, 0);
  if (night <= now) night.setUTCDate(night.getUTCDate() + 1);
  return night;
}

test('a batch of 20 devices with seeded behaviours gets each device the verdict of its behaviour, and the batch and fleet job pages show commanded against delivered power', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await sandboxAdmin.setClock(nextNight(await sandboxAdmin.now()));
  await signIn(page);
  await bindSite(page, SITE);

  const now = await sandboxAdmin.now();
  const startMs = Math.ceil((now.getTime() + 5 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
  const endMs = startMs + 30 * MINUTE_MS;
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  // A fleet job over the site's next 20 devices in the same window, in two batches, so both
  // pages' verdicts come with the same moves of the clock; it sends while the batch is sent.
  for (const [deviceId, behaviour] of Object.entries(FLEET_JOB_BEHAVIOURS))
    if (behaviour !== 'follows') await sandboxAdmin.setDevice(deviceId, { behaviour });
  const created = await page.request.post('/api/fleet-jobs', {
    headers: { 'X-CSRF': '1', Origin: baseURL ?? '' },
    data: {
      selection: { deviceIds: Object.keys(FLEET_JOB_BEHAVIOURS) },
      command: {
        powerControl: { targetBatteryPowerW: 3000 },
        startTime: iso(startMs),
        endTime: iso(endMs),
      },
      rollout: { batchSize: 10, batchesPerMinute: 120, abortPercent: 100 },
    },
  });
  expect(created.status(), await created.text()).toBe(202);
  const { jobId } = FleetJobSchema.parse(await created.json());
  const sent = await page.request.post('/api/batches', {
    // A key of its own each try: a retry's batch is a new one in a new window, not the first's.
    headers: { 'X-CSRF': '1', Origin: baseURL ?? '', 'Idempotency-Key': randomUUID() },
    data: {
      devices: Object.keys(EXPECTED),
      command: {
        powerControl: { targetBatteryPowerW: 3000 },
        startTime: iso(startMs),
        endTime: iso(endMs),
      },
    },
  });
  expect(sent.status()).toBe(202);
  const { batchCommandId } = (await sent.json()) as { batchCommandId: string };

  await expect
    .poll(
      async () => {
        const answer = await page.request.get(`/api/fleet-jobs/${jobId}`);
        return FleetJobSchema.parse(await answer.json()).batches.map((batch) => batch.state);
      },
      { timeout: 30_000 },
    )
    .toEqual(['sent', 'sent']);

  /** Each device's verdict of the batch or fleet job at `path`, and how many devices it knows. */
  const verdictsAt = async (path: string) => {
    const body = EventVerdictsAnswerSchema.parse(await (await page.request.get(path)).json());
    return {
      devices: body.devices,
      verdicts: Object.fromEntries(body.verdicts.map((item) => [item.deviceId, item.verdict])),
    };
  };
  const batchVerdicts = `/api/batches/${batchCommandId}/verdicts`;
  const jobVerdicts = `/api/fleet-jobs/${jobId}/verdicts`;

  // Into the window, so the BFF finds each device's command of the batch and job, then past its end.
  await sandboxAdmin.setClock(new Date(startMs + MINUTE_MS));
  await expect
    .poll(
      async () => [
        (await verdictsAt(batchVerdicts)).devices,
        (await verdictsAt(jobVerdicts)).devices,
      ],
      { timeout: 60_000 },
    )
    .toEqual([20, 20]);
  await sandboxAdmin.setClock(new Date(endMs + 2 * MINUTE_MS));

  // A verdict is due within 10 minutes of the window's end on the upstream's clock
  // (docs/verification.md): while one is missing, the clock moves on by half a minute at a time,
  // as it would while the BFF waits for the devices' read slots, up to that promise and no further.
  // The verdicts then come at the pace the BFF works, however loaded the machine.
  const expectedOfJob = Object.fromEntries(
    Object.entries(FLEET_JOB_BEHAVIOURS).map(([deviceId, behaviour]) => [
      deviceId,
      VERDICT_OF_BEHAVIOUR[behaviour],
    ]),
  );
  const verdictDeadlineMs = endMs + 10 * MINUTE_MS;
  await expect
    .poll(
      async () => {
        const got = {
          batch: (await verdictsAt(batchVerdicts)).verdicts,
          job: (await verdictsAt(jobVerdicts)).verdicts,
        };
        const missing = Object.keys(got.batch).length + Object.keys(got.job).length < 40;
        const clockMs = (await sandboxAdmin.now()).getTime();
        if (missing && clockMs + MINUTE_MS / 2 <= verdictDeadlineMs)
          await sandboxAdmin.setClock(new Date(clockMs + MINUTE_MS / 2));
        return got;
      },
      { timeout: 120_000, intervals: [3_000] },
    )
    .toEqual({ batch: EXPECTED, job: expectedOfJob });
  // A third of the fleet fell short: the batch gave less than 80% of what was commanded, and the
  // operator who sent it is told once, with each device that did not follow.
  await expect
    .poll(
      async () => {
        const inbox = await page.request.get('/api/notifications?limit=100');
        const { notifications } = (await inbox.json()) as { notifications: { title: string }[] };
        return notifications.map((notification) => notification.title);
      },
      { timeout: 30_000 },
    )
    .toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Batch delivered \d+% of what was commanded$/),
        `${device(11)} did not follow its command`,
        `${device(14)} went silent during its command`,
      ]),
    );

  await page.goto(`/batches/${encodeURIComponent(batchCommandId)}`);
  const delivery = page.getByRole('region', { name: 'Delivery' });
  await expect(delivery).toContainText(/Delivered [\d.]+ of [\d.]+ kWh/);
  await expect(
    delivery.getByRole('heading', { name: 'Commanded against delivered power' }),
  ).toBeVisible();
  await expect(page.locator(`tr[data-device="${device(11)}"]`)).toContainText('Not following');
  await expect(page.locator(`tr[data-device="${device(16)}"]`)).toContainText(
    'Limited by state of charge',
  );
  await shots(page, 'batch-delivery', delivery);

  await page.goto(`/sites/${SITE}/devices/${device(16)}`);
  const verdictsHeading = page.getByRole('heading', { name: /^Verdicts: commanded against/ });
  await expect(page.getByText('Limited by state of charge').first()).toBeVisible();
  await shots(page, 'device-verdicts', verdictsHeading);

  await page.goto(`/fleet-jobs/${jobId}`);
  const jobDelivery = page.getByRole('region', { name: 'Delivery' });
  await expect(jobDelivery).toContainText(/Delivered [\d.]+ of [\d.]+ kWh/);
  await expect(
    jobDelivery.getByRole('heading', { name: 'Commanded against delivered power' }),
  ).toBeVisible();
  // Each device's line carries its verdict, in each batch's fold.
  const batches = page.getByRole('region', { name: 'Batches' });
  for (const fold of await batches.getByText(/^\d+ devices$/).all()) await fold.click();
  await expect(batches.locator('.fleet-devices li')).toHaveCount(20);
  await expect(batches.locator('.fleet-devices li').filter({ hasText: device(22) })).toContainText(
    'Not following',
  );
  await expect(batches.locator('.fleet-devices li').filter({ hasText: device(27) })).toContainText(
    'Limited by state of charge',
  );
  await shots(page, 'fleet-job-delivery', jobDelivery);
  await shots(page, 'fleet-job-delivery-devices', batches.locator('table'));

  await page.goto('/overview');
  await expect(page.getByText(/devices reporting|reporting/i).first()).toBeVisible();
  // The chart's code loads on its own: pictured before it, the state of charge panel was blank.
  await expect(page.getByRole('img', { name: /State of charge across the fleet/ })).toBeVisible();
  await shots(page, 'overview-fleet');
});
