import { EventVerdictsAnswerSchema } from '#domain/verdict-answer.ts';
import type { APIRequestContext } from '@playwright/test';
import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';

const SITE = 'PLANT-EU-100';
const MINUTE_MS = 60_000;
/** Follows its commands. */
const FOLLOWING = 'BAT-EU-100-01';
/** Ignores commands (src/sandbox/README.md, Behaviours): after two, it is flagged. */
const IGNORING = 'BAT-EU-100-11';
/** Starts 5 points above its 10% cut-off: 1 kWh of 20 kWh, 24 min at 2.5 kW. */
const NEAR_CUTOFF = 'BAT-EU-100-16';

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The next 02:00 UTC: night at the site, so no PV charges the batteries meanwhile. */
function nextNight(now: Date): Date {
  const night = new Date(now);
  night.setUTCHours(2, 0, 0, 0);
  if (night <= now) night.setUTCDate(night.getUTCDate() + 1);
  return night;
}

/** Verdicts of a batch the BFF has, once it has them all (real time: the queue works apace). */
async function verdictsOf(request: APIRequestContext, batchCommandId: string, count: number) {
  await expect
    .poll(
      async () => {
        const answer = await request.get(`/api/batches/${batchCommandId}/verdicts`);
        return EventVerdictsAnswerSchema.parse(await answer.json()).verdicts.length;
      },
      { timeout: 60_000 },
    )
    .toBe(count);
}

test('before sending, the batch composer says what the devices can deliver, and leaves out a device that did not follow its last commands', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(150_000);
  await sandboxAdmin.setClock(nextNight(await sandboxAdmin.now()));
  await signIn(page);
  await bindSite(page, SITE);

  // Two short commands, one after the other, to a following and an ignoring device.
  const now = await sandboxAdmin.now();
  const firstMs = Math.ceil((now.getTime() + 3 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
  const batchIds: string[] = [];
  for (const [index, startMs] of [firstMs, firstMs + 3 * MINUTE_MS].entries()) {
    const sent = await page.request.post('/api/batches', {
      headers: { 'X-CSRF': '1', Origin: baseURL ?? '', 'Idempotency-Key': `deliverable-${index}` },
      data: {
        devices: [FOLLOWING, IGNORING],
        command: {
          powerControl: { targetBatteryPowerW: 2000 },
          startTime: iso(startMs),
          endTime: iso(startMs + 2 * MINUTE_MS),
        },
      },
    });
    expect(sent.status()).toBe(202);
    batchIds.push(((await sent.json()) as { batchCommandId: string }).batchCommandId);
  }
  // Past both windows: each device's command gets its verdict.
  await sandboxAdmin.setClock(new Date(firstMs + 8 * MINUTE_MS));
  for (const batchCommandId of batchIds) await verdictsOf(page.request, batchCommandId, 2);

  await page.getByRole('link', { name: 'Batches' }).click();
  await page.getByRole('link', { name: 'New batch' }).click();
  await page.getByLabel('Site', { exact: true }).selectOption({ value: SITE });
  for (const deviceId of [FOLLOWING, IGNORING, NEAR_CUTOFF])
    await page.getByRole('checkbox', { name: `Include ${deviceId}` }).click();
  const counter = page.locator('.batch-counter');
  await expect(counter).toHaveText('3 of 50 devices selected');

  await page.getByLabel('Target battery power (W)').fill('2500');
  const panel = page.getByRole('region', { name: 'Deliverable power' });
  // The default window is an hour: the device near its cut-off lasts 24 minutes of it.
  await expect(panel).toContainText(/Deliverable about [\d.]+ kW for 1 h of 7\.5 kW commanded/, {
    timeout: 30_000,
  });
  await expect(panel.getByRole('listitem').filter({ hasText: NEAR_CUTOFF })).toContainText(
    /lasts 2\d min before its cut-off/,
  );
  const chips = page.getByRole('list', { name: 'Devices in the batch' });
  await expect(chips.getByRole('listitem').filter({ hasText: IGNORING })).toContainText(
    /did not follow \d of its last \d commands/,
  );

  await panel.getByRole('button', { name: 'Leave out 1 device that did not follow' }).click();
  await expect(counter).toHaveText('2 of 50 devices selected');
  await expect(chips).not.toContainText(IGNORING);
  await expect(panel).toContainText(/for 1 h of 5 kW commanded/);
  await panel.getByRole('button', { name: 'Put it back' }).click();
  await expect(counter).toHaveText('3 of 50 devices selected');
});
