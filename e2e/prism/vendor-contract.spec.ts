import { test as base, expect, type Page } from '@playwright/test';
import { startPrismStack, type PrismStack } from '../support/prism-stack.ts';

/*
 * The product against the vendor's contract as published, not against our sandbox: the BFF's
 * upstream is a Prism mock of docs/upstream.openapi.yaml (the vendor's document in our words,
 * with its examples), and an operator goes through the product in Chromium. Prism runs with
 * `--errors`, so every request the BFF sends must pass the document's schemas; each test also
 * checks that no page showed an error, that no API call of the SPA was refused, and that Prism
 * logged no departure from the document.
 *
 * A static mock answers each operation with its first example, whatever was asked, so the story
 * it tells is the document's (site PLANT-EU-001 bound, its three batteries, command
 * cmd_7QmZp2LxV9sKd4Hf sent for a window two hours ahead, a batch five minutes later), moved to
 * start when the stack starts (e2e/support/prism-stack.ts), not the operator's. Where the examples
 * differ from what the vendor would answer, the test asserts what an operator sees from them and
 * says why beside the step.
 */

const test = base.extend<{ refusals: string[] }, { stack: PrismStack }>({
  stack: [
    // Playwright reads the fixture's dependencies from this destructuring, so it must stay.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const stack = await startPrismStack();
      try {
        await use(stack);
      } finally {
        await stack.stop();
      }
    },
    { scope: 'worker', auto: true, timeout: 150_000 },
  ],
  // Every answer of the BFF to the SPA with an error status, but the session check of a page
  // opened signed out (the sign-in page asks who is signed in and is told: nobody).
  refusals: [
    async ({ page }, use) => {
      const refusals: string[] = [];
      page.on('response', (response) => {
        const url = new URL(response.url());
        if (!url.pathname.startsWith('/api/') || response.status() < 400) return;
        const request = response.request();
        if (request.method() === 'GET' && url.pathname === '/api/session') return;
        refusals.push(`${request.method()} ${url.pathname}: ${response.status()}`);
      });
      await use(refusals);
    },
    { auto: true },
  ],
});

test.afterEach(async ({ stack, refusals }) => {
  expect(refusals, 'API calls of the SPA the BFF refused').toEqual([]);
  expect(stack.violations(), "Prism's report of requests departing from the document").toEqual([]);
});

/** The example site, its first battery and the command the document's examples tell of. */
const SITE = 'PLANT-EU-001';
const DEVICE = 'BAT-EU-001-A';
const EXAMPLE_COMMAND = 'cmd_7QmZp2LxV9sKd4Hf';

async function signIn(page: Page, region: 'Europe' | 'Australia'): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('Region').selectOption({ label: region });
  // Prism checks that a token request is a well-formed client-credentials form, not who sends it.
  await page.getByLabel('Client ID').fill(`partner-${region.toLowerCase()}`);
  await page.getByLabel('Client secret').fill('any-secret');
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Signed in, the product opens on the region's overview; the story goes on from the sites.
  await expect(page.getByRole('heading', { name: `Overview: ${region}`, level: 1 })).toBeVisible();
  await expectNoErrorShown(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
  await expect(page.getByRole('heading', { name: 'Sites', level: 1 })).toBeVisible();
}

/**
 * No error notice on the page now: a problem is a `role="alert"` notice in the page's content (a
 * toast's text is one too, outside it: "Done: ..." with Undo).
 */
async function expectNoErrorShown(page: Page): Promise<void> {
  await expect(page.locator('main [role="alert"]:visible')).toHaveCount(0);
}

/**
 * The region's token exchanges answered 200 with `fields`, the dialect of its token answer. The
 * signed-in session's is the first; the background readers (the read model, the fleet snapshot,
 * every five minutes by default) ask one of their own as the account, at moments of their own, so
 * a second may have come by now.
 */
function expectTokenExchanges(
  tokens: readonly { region: string; status: number; fields: readonly string[] }[],
  region: 'eu' | 'au',
  fields: readonly string[],
): void {
  const exchanges = tokens.filter((token) => token.region === region);
  expect(exchanges.length).toBeGreaterThanOrEqual(1);
  expect(exchanges.length).toBeLessThanOrEqual(2);
  for (const exchange of exchanges) expect(exchange).toEqual({ region, status: 200, fields });
}

test("Europe, with the partner guide's token: every page, a command sent and cancelled, unbind", async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  await signIn(page, 'Europe');
  expectTokenExchanges(stack.tokens, 'eu', ['access_token', 'token_type', 'expires_in']);

  // The mock's site list always holds the example site, so it shows before any bind, and the
  // product, which reads the list first, takes the bind for one already made (against the vendor
  // a site not yet bound reads "Bound PLANT-EU-001 (...)").
  const site = page.getByRole('region', { name: new RegExp(SITE) });
  await expect(site).toBeVisible();
  await page.getByLabel('Site ID').fill(SITE);
  await page.getByRole('button', { name: 'Bind', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'was already bound' })).toContainText(
    `${SITE} (Berlin Logistics Hub)`,
  );
  // DE with UTC+1:00 names one zone's behaviour: the site's clock is Berlin's.
  await expect(site).toContainText('Europe/Berlin');
  await expectNoErrorShown(page);

  await site.getByRole('link', { name: DEVICE, exact: true }).click();
  await expect(page.getByRole('heading', { name: /Hall A battery/ })).toBeVisible();
  await expectNoErrorShown(page);

  // The submission's answer is the example's: command cmd_7Qm..., whatever the window chosen. The
  // device's history and the command's status record are the examples' too, so its row shows the
  // example's window, two hours ahead, received.
  await page.getByLabel('Target battery power (W)', { exact: true }).fill('-3000');
  await page.getByRole('button', { name: 'Submit command' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Command submitted' })).toContainText(
    EXAMPLE_COMMAND,
  );
  const row = page.getByRole('row').filter({ hasText: EXAMPLE_COMMAND });
  await expect(row).toContainText('received');
  await expect(row).toContainText('3 kW charge');

  // The cancel's answer is the example's, for this command: the product says it is cancelled and
  // offers Undo. The read model records the cancellation from that answer, so the row reads as it
  // would against the vendor, though the mock's history example still lists it received.
  await row.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Cancel command' }).click();
  // The toast names the command by its words (the example's 3 kW charge), not its ID.
  await expect(
    page.getByRole('alertdialog', { name: /^Done: 3 kW charge on .+ cancelled$/ }),
  ).toBeVisible();
  await expect(row).toContainText('Cancelled by an operator');
  await expectNoErrorShown(page);

  // The history page shows the last 7 days: of the example's three commands, the one that
  // completed an hour before the story (the two others are ahead).
  await page.goto(`/sites/${SITE}/devices/${DEVICE}/history`);
  await expect(
    page.getByRole('heading', { name: 'Command history of Hall A battery' }),
  ).toBeVisible();
  await expect(page.locator('#history-count')).toContainText(/^1 command between/);
  await expect(page.getByRole('row').filter({ hasText: 'cmd_Hk2Wq9TzR4vN8bXe' })).toContainText(
    'Completed',
  );
  await expectNoErrorShown(page);

  await page.goto('/timeline');
  await expect(page.getByRole('grid', { name: 'Command timeline' })).toBeVisible();
  await expect(
    page.getByRole('gridcell', {
      name: /^Hall A battery: 3 kW charge, .*Cancelled \(by operator\)$/,
    }),
  ).toBeAttached();
  await expectNoErrorShown(page);

  await page.goto('/batches/new');
  await expect(page.getByRole('heading', { name: 'New batch' })).toBeVisible();
  await page.getByLabel('Site', { exact: true }).selectOption(SITE);
  await expect(page.getByRole('checkbox', { name: /BAT-EU-001-C/ })).toBeVisible();
  await expectNoErrorShown(page);

  await page.goto('/sites');
  await site.getByRole('button', { name: 'Unbind' }).click();
  const unbound = page.waitForResponse(
    (response) =>
      response.request().method() === 'DELETE' && response.url().endsWith(`/api/sites/${SITE}`),
  );
  // The dialog first looks for the site's waiting and executing commands; where the mock's
  // history lists one, it offers to leave them running or to cancel them first.
  await expect(page.getByText('Looking for its waiting and executing commands…')).toHaveCount(0);
  await page.getByRole('button', { name: /^(Unbind site|Leave them running and unbind)$/ }).click();
  expect((await unbound).status()).toBe(204);
  // The mock lists the example site whatever was unbound, so the page shows it again.
  await expect(site).toBeVisible();
  await expectNoErrorShown(page);
});

test("Australia, with the vendor document's camelCase token: sign in and the sites", async ({
  page,
  stack,
}) => {
  await signIn(page, 'Australia');
  expectTokenExchanges(stack.tokens, 'au', [
    'accessToken',
    'refreshToken',
    'tokenType',
    'expiresIn',
  ]);
  // The same examples serve both regions: the example site, on Berlin's clock.
  const site = page.getByRole('region', { name: new RegExp(SITE) });
  await expect(site).toContainText('Europe/Berlin');
  await site.getByRole('link', { name: DEVICE, exact: true }).click();
  await expect(page.getByRole('heading', { name: /Hall A battery/ })).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: 'cmd_Hk2Wq9TzR4vN8bXe' })).toContainText(
    'completed',
  );
  await expectNoErrorShown(page);
});
