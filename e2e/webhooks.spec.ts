import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { test, expect, signIn, openAccountMenu } from './support/fixtures.ts';
import { screenshotPath, stillForPicture } from './support/screenshots.ts';

/**
 * An administrator subscribes a receiver to webhooks on the Webhooks page (docs/automation.md):
 * adds its address, copies the signing secret (shown once), sends a test event the receiver gets
 * signed with it, sees it in the delivery log, redelivers it (the same `webhook-id` again), and
 * deletes the endpoint after a confirmation. The receiver listens on 127.0.0.1, which the browser
 * tests' BFF allows. Pictures of the Tokens and Webhooks pages, light and dark, at both sizes.
 */

const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

/** One request the receiver took: its Standard Webhooks headers and body as sent. */
interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
}

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
};

/** A receiver on 127.0.0.1 that answers 200 to every delivery and keeps what it took. */
async function startReceiver() {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        id: header(request.headers, 'webhook-id'),
        timestamp: header(request.headers, 'webhook-timestamp'),
        signature: header(request.headers, 'webhook-signature'),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('taken');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/powerdeck-events`,
    received,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * True when one of the `v1,` signatures of `delivery` is the HMAC-SHA256 of
 * `id.timestamp.body` under `secret` (Standard Webhooks: the key is the base64 after `whsec_`).
 */
function signedWith(secret: string, delivery: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${delivery.id}.${delivery.timestamp}.${delivery.body}`)
    .digest();
  return delivery.signature.split(' ').some((signature) => {
    const [version, value] = signature.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Pictures of the page as it is, at both sizes, light and dark: `<name>[-dark]-<w>x<h>.png`. */
async function shoot(page: Page, name: string) {
  for (const colorScheme of SCHEMES)
    for (const size of SIZES) {
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize(size);
      const suffix = colorScheme === 'dark' ? '-dark' : '';
      await stillForPicture(page);
      await page.screenshot({
        path: screenshotPath(`${name}${suffix}-${size.width}x${size.height}.png`),
      });
    }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(SIZES[0]);
}

test('an administrator subscribes a receiver, sees a test event in the log, redelivers it and deletes the endpoint', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const receiver = await startReceiver();
  try {
    await signIn(page);
    await (await openAccountMenu(page)).getByRole('link', { name: 'Tokens' }).click();
    await expect(page.getByRole('heading', { name: 'API tokens', level: 1 })).toBeVisible();
    await shoot(page, 'tokens-page');

    await (await openAccountMenu(page)).getByRole('link', { name: 'Webhooks' }).click();
    await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
    await expect(page.getByText('No endpoints yet.')).toBeVisible();

    await page.getByLabel('Address').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('e2e receiver');
    await page.getByRole('checkbox', { name: /A fleet job ended/ }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const made = page.getByRole('status').filter({ hasText: 'You will not see it again' });
    await expect(made).toBeFocused();
    const secret = (await made.getByLabel('Signing secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await made.getByRole('button', { name: 'Copy secret' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await made.getByRole('button', { name: 'I have kept it' }).click();
    await expect(page.getByText(secret)).toHaveCount(0);

    // The new endpoint's page opens below the list, its heading focused.
    await expect(page.getByRole('heading', { name: `Endpoint ${receiver.url}` })).toBeFocused();
    await expect(page.getByRole('row', { name: new RegExp(receiver.url) })).toContainText(
      'every site',
    );

    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect(page.getByText('Test event queued')).toBeVisible();
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(1);
    const first = receiver.received[0];
    expect(first?.id).toMatch(/^msg_/);
    expect(first && signedWith(secret, first)).toBe(true);
    expect(JSON.parse(first?.body ?? '{}')).toMatchObject({ type: 'webhook.test' });

    const log = page.getByRole('table', { name: /Deliveries to this endpoint/ });
    const row = log.getByRole('row').filter({ hasText: 'Test event' });
    await expect(row).toContainText('Delivered', { timeout: 20_000 });
    await expect(row).toContainText('200 in');

    await row.getByRole('button', { name: /open its attempts/ }).click();
    const drawer = page.getByRole('dialog', { name: 'Delivery' });
    await expect(drawer.getByRole('heading', { name: 'Attempts (1)' })).toBeVisible();
    await expect(drawer.getByRole('list', { name: 'Attempts' })).toContainText('answered 200');
    await expect(drawer.getByLabel('Payload')).toContainText('webhook.test');
    await shoot(page, 'webhooks');

    await drawer.getByRole('button', { name: 'Redeliver' }).click();
    await expect(drawer.getByText('Queued again')).toBeVisible();
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(2);
    // The same event, so a receiver drops the repeat: the same webhook-id, signed afresh.
    expect(receiver.received[1]?.id).toBe(first?.id);
    expect(receiver.received[1] && signedWith(secret, receiver.received[1])).toBe(true);
    await expect(
      drawer
        .getByRole('heading', { name: 'Attempts (2)' })
        .or(drawer.getByText('Redelivered', { exact: true }))
        .first(),
    ).toBeVisible({ timeout: 20_000 });
    await drawer.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    const dialog = page.getByRole('alertdialog', { name: `Delete the endpoint ${receiver.url}?` });
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await expect(page.getByRole('heading', { name: 'Endpoints' })).toBeFocused();
    await expect(page.getByText('No endpoints yet.')).toBeVisible();
  } finally {
    await receiver.stop();
  }
});
