import type { Locator } from '@playwright/test';
import { test, expect, bindSite, signIn } from './support/fixtures.ts';
import { sandboxAdmin } from './support/sandbox-admin.ts';

/**
 * The overview's layout (features/overview/components/overview.css): a section's lines stand
 * flush under its heading, and only a batch's device commands, opened from its folded line, are
 * indented under that line.
 */

const MINUTE_MS = 60_000;

/** A computed style of the element `locator` finds, as the browser draws it. */
const styleOf = (locator: Locator, property: 'marginTop' | 'paddingLeft') =>
  locator.evaluate(
    (element, name) =>
      (
        globalThis as unknown as {
          getComputedStyle: (element: unknown) => Record<typeof name, string>;
        }
      ).getComputedStyle(element)[name],
    property,
  );

const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

test("a section's lines stand under its heading; a batch's devices are indented under its line", async ({
  page,
}) => {
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  const origin = new URL(page.url()).origin;
  const nowMs = (await sandboxAdmin.now()).getTime();
  const batch = await page.request.post('/api/batches', {
    headers: { 'x-csrf': '1', origin },
    data: {
      devices: ['BAT-EU-001-A', 'BAT-EU-001-B'],
      command: {
        powerControl: { targetBatteryPowerW: 1000 },
        startTime: utc(nowMs + 20 * MINUTE_MS),
        endTime: utc(nowMs + 80 * MINUTE_MS),
      },
    },
  });
  expect(batch.ok(), await batch.text()).toBe(true);

  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Overview' })
    .click();
  const upcoming = page.getByRole('region', { name: /^Starts in the next 6 hours/ });
  const lines = upcoming.getByRole('list').first();
  const batchLine = lines.getByRole('listitem').filter({ hasText: /^Batch / });
  await expect(batchLine).toContainText('2 devices');
  await batchLine.getByText('Its 2 devices').click();
  const deviceLines = batchLine.getByRole('list');
  await expect(deviceLines.getByRole('listitem')).toHaveCount(2);

  const heading = await upcoming.getByRole('heading', { level: 2 }).boundingBox();
  const batchBox = await batchLine.boundingBox();
  const deviceBox = await deviceLines.getByRole('listitem').first().boundingBox();
  if (!heading || !batchBox || !deviceBox) throw new Error('the overview is not drawn');
  // The section's list: no indent, and no gap above it beyond the heading's own margin.
  expect(batchBox.x).toBe(heading.x);
  expect(await styleOf(lines, 'marginTop')).toBe('0px');
  expect(await styleOf(lines, 'paddingLeft')).toBe('0px');
  // The batch's own list: indented under the batch's line.
  expect(deviceBox.x).toBeGreaterThan(batchBox.x);
  expect(await styleOf(deviceLines, 'paddingLeft')).not.toBe('0px');

  await page.screenshot({ path: test.info().outputPath('overview-layout.png'), fullPage: true });
});
