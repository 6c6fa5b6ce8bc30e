import type { Browser, Page } from '@playwright/test';
import { test, expect, DEMO_EU } from './support/fixtures.ts';

/**
 * Live updates across browsers of one account (docs/architecture.md, Live updates): what one
 * operator's action makes reaches another's open page through the BFF's event stream, without a
 * reload. The notification is made through the test-only route (`TEST_ROUTES=1`), as the modules
 * that will call `notify` would.
 */

/**
 * A page of its own browser context (its own cookie), signed in to demo-eu under `name`, once its
 * event stream is open.
 */
async function operatorPage(browser: Browser, name: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByLabel('Region').selectOption({ label: DEMO_EU.region });
  await page.getByLabel('Client ID').fill(DEMO_EU.clientId);
  await page.getByLabel('Client secret').fill(DEMO_EU.clientSecret);
  await page.getByLabel('Operator name (optional)').fill(name);
  const streamOpen = page.waitForResponse(
    (response) => new URL(response.url()).pathname === '/api/events' && response.status() === 200,
  );
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview: Europe' })).toBeVisible();
  await streamOpen;
  return page;
}

/**
 * Marks read what the page's person has unread, so the case starts from a quiet bell: earlier
 * cases on the same stack unbind sites, and a site unbound reaches everyone of the account but
 * the person who unbound it, people who never signed in before included.
 */
async function readEverything(page: Page): Promise<void> {
  const bell = page.getByRole('button', { name: /^Notifications/ });
  await bell.click();
  const panel = page.getByRole('dialog', { name: 'Notifications' });
  const unread = panel.getByText(/^(Nothing unread|\d+ unread)$/);
  await expect(unread).toBeVisible();
  if ((await unread.textContent()) !== 'Nothing unread')
    await panel.getByRole('button', { name: 'Mark all read' }).click();
  await expect(panel.getByText('Nothing unread')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(bell).toHaveAccessibleName('Notifications');
}

test("a site unbound by one operator reaches the other operator's bell without a reload", async ({
  browser,
}) => {
  const alice = await operatorPage(browser, 'Alice');
  const bob = await operatorPage(browser, 'Bob');
  try {
    await readEverything(alice);
    await readEverything(bob);
    const bobsBell = bob.getByRole('button', { name: /^Notifications/ });
    await expect(bobsBell).toHaveAccessibleName('Notifications');
    await expect(bob.getByText('Live updates off')).toHaveCount(0);
    let bobsInboxReads = 0;
    bob.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/notifications') bobsInboxReads += 1;
    });

    const made = await alice.request.post('/api/test/notifications', {
      headers: { 'x-csrf': '1', origin: new URL(alice.url()).origin },
      data: { kind: 'siteUnbound', siteId: 'PLANT-EU-002', siteName: 'Harbour plant' },
    });
    expect(made.status()).toBe(201);

    await expect(bobsBell).toHaveAccessibleName('Notifications, 1 unread');
    // One read for the event, no reload, no poll.
    expect(bobsInboxReads).toBe(1);
    // Alice, who unbound it, is not told.
    await expect(alice.getByRole('button', { name: /^Notifications/ })).toHaveAccessibleName(
      'Notifications',
    );

    await bobsBell.click();
    const panel = bob.getByRole('dialog', { name: 'Notifications' });
    await expect(
      panel.getByRole('link', { name: 'Site Harbour plant (PLANT-EU-002) unbound' }),
    ).toBeVisible();
    await expect(panel.getByText(/^Alice unbound it\./)).toBeVisible();
    await panel.getByRole('button', { name: 'Mark all read' }).click();
    await expect(bobsBell).toHaveAccessibleName('Notifications');
    await bob.keyboard.press('Escape');
    await expect(bobsBell).toBeFocused();
  } finally {
    await alice.context().close();
    await bob.context().close();
  }
});
