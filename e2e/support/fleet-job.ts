import { expect, type Locator, type Page } from '@playwright/test';
import { FleetJobSchema } from '#domain/fleet-job.ts';
import { sandboxAdmin } from './sandbox-admin.ts';

const MINUTE_MS = 60_000;

/** `ms` rounded up to a whole minute, as a UTC timestamp without milliseconds. */
const utcMinute = (ms: number) =>
  new Date(Math.ceil(ms / MINUTE_MS) * MINUTE_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Starts a fleet job over every device of `siteIds` (bound already) through the BFF, with a
 * 5-minute window starting 3 minutes ahead on the sandbox's clock, so a test can move the clock
 * past its end; returns the job's ID and the window's end. Fleet jobs outlive the sandbox's
 * reset: a test finds its own by this ID.
 */
export async function startShortFleetJob(
  page: Page,
  siteIds: readonly string[],
): Promise<{ jobId: string; endTime: string }> {
  const nowMs = (await sandboxAdmin.now()).getTime();
  const startTime = utcMinute(nowMs + 3 * MINUTE_MS);
  const endTime = utcMinute(Date.parse(startTime) + 5 * MINUTE_MS);
  const created = await page.request.post('/api/fleet-jobs', {
    headers: { 'X-CSRF': '1', Origin: new URL(page.url()).origin },
    data: {
      selection: { siteIds },
      command: { powerControl: { targetBatteryPowerW: -1500 }, startTime, endTime },
      rollout: { batchSize: 50, batchesPerMinute: 120, abortPercent: 100 },
    },
  });
  expect(created.status(), await created.text()).toBe(202);
  return { jobId: FleetJobSchema.parse(await created.json()).jobId, endTime };
}

/** The figure of one count (`Devices`, `Sent`, `Received`, `Completed`...) of the job page's progress. */
export const progressCount = (page: Page, label: string): Locator =>
  page
    .getByRole('region', { name: 'Progress' })
    .locator('.fleet-progress > div')
    .filter({ has: page.getByText(label, { exact: true }) })
    .locator('dd');

/**
 * On the open job page: waits for every batch sent and each of the job's `devices` confirmed
 * received, moves the sandbox clock a minute past `endTime`, and waits for every device
 * completed, the page learning it by itself (bounded waits, no reload).
 */
export async function followFleetJobToEnd(
  page: Page,
  devices: number,
  endTime: string,
): Promise<void> {
  const state = page.getByRole('status').filter({ hasText: 'batches sent or tried' });
  await expect(state).toContainText('Every batch sent.', { timeout: 30_000 });
  await expect(progressCount(page, 'Devices')).toHaveText(String(devices));
  // Each device's command is confirmed from its history by the read model's reads after the
  // batch (the vendor's batch answer names none).
  await expect(progressCount(page, 'Received')).toHaveText(String(devices), { timeout: 30_000 });
  await sandboxAdmin.setClock(new Date(Date.parse(endTime) + MINUTE_MS));
  // Past the end, the read model's reads of every device wait their turn on the stack's one
  // embedded database beside the verification's reads of the same windows and the fleet snapshot:
  // a loaded clean-clone run had 5 of 63 devices completed after 30 s.
  await expect(progressCount(page, 'Completed')).toHaveText(String(devices), { timeout: 60_000 });
}
