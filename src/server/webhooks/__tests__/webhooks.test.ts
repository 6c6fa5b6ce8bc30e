import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiTokenMadeSchema } from '#domain/api-tokens.ts';
import { QueuedAnswerSchema } from '#domain/queued-change.ts';
import { createTestDatabase } from '#test/support/databases.ts';
import {
  WebhookDeliveryPageSchema,
  WebhookEndpointListSchema,
  WebhookEndpointMadeSchema,
  WebhookEndpointSchema,
  WebhookPayloadSchema,
  WebhookRedeliveredSchema,
  type WebhookDelivery,
} from '#domain/webhooks.ts';
import {
  buildTestBff,
  fileDatabase,
  sendSignedIn,
  signIn,
  type TestBff,
} from '../../__tests__/support/bff.ts';
import {
  startFakeUpstream,
  vendorPage,
  vendorSite,
  type FakeUpstream,
} from '../../__tests__/support/fake-upstream.ts';
import { RETRY_WAITS_MS } from '../webhook-queue.ts';
import { WebhookStore } from '../webhook-store.ts';

const database = fileDatabase();
const HOUR_MS = 60 * 60 * 1000;

/** A receiver on loopback: answers as `mode` says and keeps what it was sent. */
interface Receiver {
  url: string;
  mode: 'up' | 'down' | 'gone' | 'redirect';
  requests: { headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Partial<Receiver> & { mode: Receiver['mode']; requests: Receiver['requests'] } = {
    mode: 'up',
    requests: [],
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
      if (receiver.mode === 'down') return response.writeHead(503).end('resting');
      if (receiver.mode === 'gone') return response.writeHead(410).end('gone for good');
      if (receiver.mode === 'redirect')
        return response.writeHead(302, { location: 'https://example.com/hook' }).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}/hook`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver as Receiver;
}

/** The ten lines of docs/automation.md: the reference library verifies a delivery. */
function verify(secret: string, request: Receiver['requests'][number]): unknown {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers);
}

let fake: FakeUpstream;
let bff: TestBff;
let cookie: string;
let receiver: Receiver;
/** The webhooks' clock, moved through the retry schedule. */
const webhookClock = { nowMs: Date.parse('2026-05-01T10:00:00Z') };

async function subscribe(body: object = {}) {
  const response = await sendSignedIn(bff.app, cookie, 'POST', '/api/webhooks', {
    url: receiver.url,
    eventTypes: ['webhook.test', 'deviceCommand.statusChanged'],
    ...body,
  });
  expect(response.statusCode, response.body).toBe(201);
  return WebhookEndpointMadeSchema.parse(response.json());
}

async function sendTest(endpointId: string): Promise<void> {
  const response = await sendSignedIn(bff.app, cookie, 'POST', `/api/webhooks/${endpointId}/test`);
  expect(response.statusCode, response.body).toBe(202);
}

/** Attempts what is due on the webhooks' clock and waits until every claimed one is recorded. */
async function deliverDue(): Promise<void> {
  await bff.app.webhookQueue.recheck();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = await database.handle.db.execute(
      sql`select count(*)::int as n from bff.webhook_deliveries where lease_until is not null`,
    );
    const { n } = (result as unknown as { rows: { n: number }[] }).rows[0] ?? { n: 0 };
    if (n === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} deliveries still under way`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function deliveriesOf(endpointId: string): Promise<WebhookDelivery[]> {
  const response = await bff.app.inject({
    method: 'GET',
    url: `/api/webhooks/${endpointId}/deliveries`,
    headers: { cookie },
  });
  expect(response.statusCode, response.body).toBe(200);
  return WebhookDeliveryPageSchema.parse(response.json()).deliveries;
}

async function endpointOf(endpointId: string) {
  const response = await bff.app.inject({
    method: 'GET',
    url: `/api/webhooks/${endpointId}`,
    headers: { cookie },
  });
  return WebhookEndpointSchema.parse(response.json());
}

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', () =>
    vendorPage('sites', [vendorSite('PLANT-1', ['DEV-1']), vendorSite('PLANT-2', ['DEV-2'])]),
  );
  let serial = 0;
  fake.on('POST', '/device/DEV-1/commands', (_request, reply) =>
    reply
      .code(202)
      .send({ id: `cmd_${++serial}`, message: 'accepted', timestamp: '2026-05-01T10:00:00Z' }),
  );
  receiver = await startReceiver();
  bff = await buildTestBff(fake, {
    database: database.handle,
    webhooksAllowPrivateAddresses: true,
    // The vendor's 2 calls per device and minute: a third change meets a spent budget.
    deviceCallsPerMinute: { eu: 2, au: 2 },
    testing: {
      webhookNow: () => webhookClock.nowMs,
      // Due deliveries are looked for when the test says (`deliverDue`).
      webhookQueue: { recheckIntervalMs: 0, pollingIntervalSeconds: 0.5 },
    },
  });
  cookie = await signIn(bff.app, { operatorName: 'Ada' });
  await bff.app.webhookQueue.start();
});
afterAll(async () => {
  await bff.app.close();
  await receiver.close();
  await fake.close();
});
beforeEach(() => {
  receiver.mode = 'up';
  receiver.requests.length = 0;
});

describe('outgoing webhooks', () => {
  it('signs every delivery so that the Standard Webhooks reference library verifies it', async () => {
    const { endpoint, secret } = await subscribe();
    expect(secret).toMatch(/^whsec_/);
    await sendTest(endpoint.id);
    await deliverDue();
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    if (!request) throw new Error('nothing received');
    const payload = WebhookPayloadSchema.parse(verify(secret, request));
    expect(payload).toMatchObject({
      type: 'webhook.test',
      data: { region: 'eu', links: { endpoint: `/api/webhooks/${endpoint.id}` } },
    });
    expect(request.headers['webhook-id']).toMatch(/^msg_/);
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, request)).toThrow();
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({
      status: 'succeeded',
      eventId: request.headers['webhook-id'],
      attempts: [{ statusCode: 200, responseExcerpt: '{"ok":true}' }],
    });
    expect((await endpointOf(endpoint.id)).lastAttempt).toMatchObject({
      succeeded: true,
      statusCode: 200,
    });
  });

  it('delivers every event once to a receiver down for a day, each with its webhook-id', async () => {
    const { endpoint, secret } = await subscribe();
    receiver.mode = 'down';
    for (let event = 0; event < 3; event += 1) await sendTest(endpoint.id);
    const startedMs = webhookClock.nowMs;
    await deliverDue();
    // Through the schedule until a day has passed, the receiver answering 503 to each attempt.
    for (const waitMs of RETRY_WAITS_MS) {
      if (webhookClock.nowMs + waitMs - startedMs > 24 * HOUR_MS) break;
      webhookClock.nowMs += waitMs;
      await deliverDue();
    }
    const downAttempts = receiver.requests.length;
    expect(downAttempts).toBeGreaterThanOrEqual(3 * 6);
    const downIds = new Set(receiver.requests.map((request) => request.headers['webhook-id']));
    expect(downIds.size).toBe(3);
    expect((await deliveriesOf(endpoint.id)).every((d) => d.status === 'pending')).toBe(true);

    receiver.mode = 'up';
    receiver.requests.length = 0;
    webhookClock.nowMs += 10 * HOUR_MS;
    await deliverDue();
    const ids = receiver.requests.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(3);
    expect(new Set(ids)).toEqual(downIds);
    for (const request of receiver.requests) expect(verify(secret, request)).toBeDefined();
    const deliveries = await deliveriesOf(endpoint.id);
    expect(deliveries.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(deliveries[0]?.attempts.at(-2)).toMatchObject({
      statusCode: 503,
      responseExcerpt: 'resting',
    });
  });

  it('disables an endpoint that answers 410 Gone, and tells its maker', async () => {
    const { endpoint } = await subscribe();
    receiver.mode = 'gone';
    await sendTest(endpoint.id);
    await sendTest(endpoint.id);
    await deliverDue();
    const disabled = await endpointOf(endpoint.id);
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'gone' });
    const deliveries = await deliveriesOf(endpoint.id);
    expect(deliveries.map((d) => d.status)).toEqual(['failed', 'failed']);
    webhookClock.nowMs += 24 * HOUR_MS;
    await deliverDue();
    expect(receiver.requests.length).toBeLessThanOrEqual(2);
    const inbox = await bff.app.inject({
      method: 'GET',
      url: '/api/notifications',
      headers: { cookie },
    });
    expect(inbox.body).toContain(`Webhook to ${receiver.url} disabled`);
    const test = await sendSignedIn(bff.app, cookie, 'POST', `/api/webhooks/${endpoint.id}/test`);
    expect(test.json()).toMatchObject({ status: 409, code: 'webhook_endpoint_disabled' });
  });

  it('disables an endpoint that fails the whole schedule', async () => {
    const { endpoint } = await subscribe();
    receiver.mode = 'down';
    await sendTest(endpoint.id);
    await deliverDue();
    for (const waitMs of RETRY_WAITS_MS) {
      webhookClock.nowMs += waitMs;
      await deliverDue();
    }
    expect(receiver.requests).toHaveLength(RETRY_WAITS_MS.length + 1);
    expect(await endpointOf(endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
  });

  it('does not follow a redirect: the attempt fails and is retried', async () => {
    const { endpoint } = await subscribe();
    receiver.mode = 'redirect';
    await sendTest(endpoint.id);
    await deliverDue();
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: [{ statusCode: 302, error: 'redirects are not followed' }],
    });
    expect(receiver.requests).toHaveLength(1);
  });

  it('signs with both secrets during a rotation, new first, and each verifies', async () => {
    const { endpoint, secret: oldSecret } = await subscribe();
    const rotated = await sendSignedIn(
      bff.app,
      cookie,
      'POST',
      `/api/webhooks/${endpoint.id}/rotate-secret`,
    );
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret: newSecret, endpoint: after } = WebhookEndpointMadeSchema.parse(rotated.json());
    expect(newSecret).not.toBe(oldSecret);
    expect(after.previousSecretSignsUntil).toBeDefined();
    await sendTest(endpoint.id);
    await deliverDue();
    const [request] = receiver.requests;
    if (!request) throw new Error('nothing received');
    const signatures = String(request.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(verify(newSecret, request)).toBeDefined();
    expect(verify(oldSecret, request)).toBeDefined();
    expect(() =>
      verify(oldSecret, {
        ...request,
        headers: {
          ...request.headers,
          'webhook-signature': signatures[1] === undefined ? '' : signatures[0],
        },
      }),
    ).toThrow();

    receiver.requests.length = 0;
    webhookClock.nowMs += 25 * HOUR_MS;
    await sendTest(endpoint.id);
    await deliverDue();
    const [later] = receiver.requests;
    if (!later) throw new Error('nothing received');
    expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => verify(oldSecret, later)).toThrow();
  });

  it('redelivers one delivery and every failed one of a range, with the same webhook-id, audited', async () => {
    const { endpoint } = await subscribe();
    receiver.mode = 'gone';
    const fromMs = webhookClock.nowMs;
    await sendTest(endpoint.id);
    await deliverDue();
    const enable = await sendSignedIn(bff.app, cookie, 'PATCH', `/api/webhooks/${endpoint.id}`, {
      enabled: true,
    });
    expect(enable.json()).toMatchObject({ enabled: true });
    webhookClock.nowMs += 1000;
    await sendTest(endpoint.id);
    receiver.mode = 'down';
    await deliverDue();
    // Exhaust the second one so that both have failed.
    for (const waitMs of RETRY_WAITS_MS) {
      webhookClock.nowMs += waitMs;
      await deliverDue();
    }
    await sendSignedIn(bff.app, cookie, 'PATCH', `/api/webhooks/${endpoint.id}`, { enabled: true });
    const failed = await deliveriesOf(endpoint.id);
    expect(failed.map((d) => d.status)).toEqual(['failed', 'failed']);
    receiver.mode = 'up';
    receiver.requests.length = 0;

    const [newer, older] = failed;
    const one = await sendSignedIn(
      bff.app,
      cookie,
      'POST',
      `/api/webhooks/${endpoint.id}/deliveries/${older?.id ?? ''}/redeliver`,
    );
    expect(WebhookRedeliveredSchema.parse(one.json())).toEqual({ redelivered: 1 });
    await deliverDue();
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([older?.eventId]);

    receiver.requests.length = 0;
    const range = await sendSignedIn(
      bff.app,
      cookie,
      'POST',
      `/api/webhooks/${endpoint.id}/redeliver`,
      {
        from: new Date(fromMs - 1000).toISOString(),
        to: new Date(webhookClock.nowMs).toISOString(),
      },
    );
    expect(range.json()).toEqual({ redelivered: 1 });
    await deliverDue();
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([newer?.eventId]);
    const after = await deliveriesOf(endpoint.id);
    expect(after.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    expect(after[0]).toMatchObject({ redeliveredBy: 'Ada' });

    const ledger = await bff.app.inject({ method: 'GET', url: '/api/ledger', headers: { cookie } });
    const audited = (
      ledger.json() as {
        entries: { kind: string; request?: { action?: string; endpointId?: string } }[];
      }
    ).entries.filter(
      (entry) => entry.kind === 'webhook' && entry.request?.endpointId === endpoint.id,
    );
    expect(audited.map((entry) => entry.request?.action)).toEqual(
      expect.arrayContaining(['endpointMade', 'endpointChanged', 'testSent', 'redelivered']),
    );
    expect(audited.filter((entry) => entry.request?.action === 'redelivered')).toHaveLength(2);
  });

  it('refuses an endpoint limited to a site the account has not bound, made or changed, and names it', async () => {
    const made = await sendSignedIn(bff.app, cookie, 'POST', '/api/webhooks', {
      url: receiver.url,
      eventTypes: ['webhook.test'],
      siteIds: ['PLANT-9'],
    });
    expect(made.statusCode).toBe(404);
    expect(made.json<{ detail: string }>().detail).toMatch(/^PLANT-9 is not a site bound/);
    const { endpoint } = await subscribe({ siteIds: ['PLANT-1'] });
    const changed = await sendSignedIn(bff.app, cookie, 'PATCH', `/api/webhooks/${endpoint.id}`, {
      siteIds: ['PLANT-1', 'PLANT-9'],
    });
    expect(changed.statusCode).toBe(404);
    expect(changed.json()).toMatchObject({ code: 'unknown_or_unbound' });
    const list = await bff.app.inject({ method: 'GET', url: '/api/webhooks', headers: { cookie } });
    expect(
      WebhookEndpointListSchema.parse(list.json()).endpoints.find((e) => e.id === endpoint.id),
    ).toMatchObject({ siteIds: ['PLANT-1'] });
  });

  it('lists, turns off and deletes an endpoint, audited, and forgets deliveries after 30 days', async () => {
    const { endpoint } = await subscribe({ description: 'ticketing' });
    const list = await bff.app.inject({ method: 'GET', url: '/api/webhooks', headers: { cookie } });
    const listed = WebhookEndpointListSchema.parse(list.json()).endpoints;
    expect(listed.find((e) => e.id === endpoint.id)).toMatchObject({
      description: 'ticketing',
      madeBy: 'Ada',
      enabled: true,
    });
    expect(list.body).not.toContain('whsec_');

    await sendTest(endpoint.id);
    const off = await sendSignedIn(bff.app, cookie, 'PATCH', `/api/webhooks/${endpoint.id}`, {
      enabled: false,
    });
    expect(off.json()).toMatchObject({ enabled: false, disabledReason: 'byAdministrator' });
    await deliverDue();
    expect(receiver.requests).toEqual([]);
    expect((await deliveriesOf(endpoint.id)).map((d) => d.status)).toEqual(['failed']);

    await sendSignedIn(bff.app, cookie, 'PATCH', `/api/webhooks/${endpoint.id}`, { enabled: true });
    await sendTest(endpoint.id);
    await deliverDue();
    webhookClock.nowMs += 31 * 24 * HOUR_MS;
    await bff.app.webhookQueue.prune();
    expect(await deliveriesOf(endpoint.id)).toEqual([]);

    const deleted = await sendSignedIn(bff.app, cookie, 'DELETE', `/api/webhooks/${endpoint.id}`);
    expect(deleted.statusCode).toBe(204);
    const gone = await bff.app.inject({
      method: 'GET',
      url: `/api/webhooks/${endpoint.id}`,
      headers: { cookie },
    });
    expect(gone.json()).toMatchObject({ status: 404, code: 'not_found' });
    const ledger = await bff.app.inject({ method: 'GET', url: '/api/ledger', headers: { cookie } });
    const actions = (
      ledger.json() as {
        entries: { kind: string; request?: { action?: string; endpointId?: string } }[];
      }
    ).entries
      .filter((entry) => entry.kind === 'webhook' && entry.request?.endpointId === endpoint.id)
      .map((entry) => entry.request?.action);
    expect(actions).toEqual(expect.arrayContaining(['endpointChanged', 'endpointDeleted']));
  });

  it("writes a batch's attempts when one delivery's endpoint was deleted meanwhile", async () => {
    const kept = await subscribe();
    const removed = await subscribe();
    await sendTest(kept.endpoint.id);
    await sendTest(removed.endpoint.id);
    const [keptDelivery] = await deliveriesOf(kept.endpoint.id);
    const [removedDelivery] = await deliveriesOf(removed.endpoint.id);
    await sendSignedIn(bff.app, cookie, 'DELETE', `/api/webhooks/${removed.endpoint.id}`);
    const store = new WebhookStore(database.handle.db);
    const result = { statusCode: 200, latencyMs: 3, succeeded: true };
    await store.recordAttempts(
      [keptDelivery, removedDelivery].map((delivery) => ({
        id: delivery?.id ?? '',
        atMs: webhookClock.nowMs,
        result,
        outcome: { status: 'succeeded' as const },
      })),
    );
    const [after] = await deliveriesOf(kept.endpoint.id);
    expect(after).toMatchObject({ status: 'succeeded', attempts: [{ statusCode: 200 }] });
  });

  it('refuses a loopback address when private addresses are not allowed', async () => {
    // A database of its own: on the file's, its pg-boss would take the other BFF's jobs, as a
    // second instance does (and a job it took while closing waits out its claim).
    const own = await createTestDatabase('pglite');
    const guarded = await buildTestBff(fake, {
      database: await own.open(),
      testing: {
        webhookNow: () => webhookClock.nowMs,
        webhookQueue: { recheckIntervalMs: 0, pollingIntervalSeconds: 0.5 },
      },
    });
    try {
      const guardedCookie = await signIn(guarded.app, { operatorName: 'Ada' });
      const refused = await sendSignedIn(guarded.app, guardedCookie, 'POST', '/api/webhooks', {
        url: 'https://127.0.0.1/hook',
        eventTypes: ['webhook.test'],
      });
      expect(refused.json()).toMatchObject({ status: 422, code: 'webhook_address_refused' });
      const plain = await sendSignedIn(guarded.app, guardedCookie, 'POST', '/api/webhooks', {
        url: 'http://hooks.example.com/hook',
        eventTypes: ['webhook.test'],
      });
      expect(plain.json()).toMatchObject({ status: 422, code: 'webhook_address_refused' });
      // A name that resolves to loopback is refused where the connection is made.
      const named = await sendSignedIn(guarded.app, guardedCookie, 'POST', '/api/webhooks', {
        url: 'https://localhost/hook',
        eventTypes: ['webhook.test'],
      });
      expect(named.statusCode, named.body).toBe(201);
      const { endpoint } = WebhookEndpointMadeSchema.parse(named.json());
      await guarded.app.webhookQueue.start();
      await sendSignedIn(guarded.app, guardedCookie, 'POST', `/api/webhooks/${endpoint.id}/test`);
      await guarded.app.webhookQueue.recheck();
      const deadline = Date.now() + 10_000;
      let attempts: WebhookDelivery['attempts'] = [];
      while (attempts.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const page = await guarded.app.inject({
          method: 'GET',
          url: `/api/webhooks/${endpoint.id}/deliveries`,
          headers: { cookie: guardedCookie },
        });
        attempts = WebhookDeliveryPageSchema.parse(page.json()).deliveries[0]?.attempts ?? [];
      }
      expect(attempts).toMatchObject([{ error: 'the address is private' }]);
    } finally {
      await guarded.app.close();
      await own.drop();
    }
  });

  it('lets an administrator token list and redeliver, and refuses a token below administrator', async () => {
    const { endpoint } = await subscribe();
    const tokenOf = async (role: string) => {
      const made = await sendSignedIn(bff.app, cookie, 'POST', '/api/tokens', {
        name: `${role} script`,
        role,
        expiresInDays: 30,
      });
      return ApiTokenMadeSchema.parse(made.json()).secret;
    };
    const asToken = (secret: string, method: 'GET' | 'POST', url: string, payload?: object) =>
      bff.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${secret}` },
        ...(payload ? { payload } : {}),
      });
    const admin = await tokenOf('admin');
    expect((await asToken(admin, 'GET', '/api/webhooks')).statusCode).toBe(200);
    expect(
      (await asToken(admin, 'GET', `/api/webhooks/${endpoint.id}/deliveries`)).statusCode,
    ).toBe(200);
    const range = { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' };
    expect(
      (await asToken(admin, 'POST', `/api/webhooks/${endpoint.id}/redeliver`, range)).statusCode,
    ).toBe(202);
    expect(
      (
        await asToken(admin, 'POST', '/api/webhooks', {
          url: receiver.url,
          eventTypes: ['webhook.test'],
        })
      ).json(),
    ).toMatchObject({
      code: 'token_not_accepted',
    });
    for (const role of ['viewer', 'dispatcher']) {
      const secret = await tokenOf(role);
      for (const [method, url] of [
        ['GET', '/api/webhooks'],
        ['GET', `/api/webhooks/${endpoint.id}/deliveries`],
        ['POST', `/api/webhooks/${endpoint.id}/redeliver`],
      ] as const) {
        const response = await asToken(secret, method, url, method === 'POST' ? range : undefined);
        expect(response.json(), `${role} ${method} ${url}`).toMatchObject({
          status: 403,
          code: 'forbidden_role',
        });
      }
    }
  });
});

describe('events from what the BFF learns', () => {
  const T0 = Date.parse('2026-05-01T10:00:00Z');
  const commandAt = (startMin: number) => ({
    powerControl: { targetBatteryPowerW: 1000 },
    startTime: new Date(T0 + startMin * 60_000).toISOString(),
    endTime: new Date(T0 + (startMin + 30) * 60_000).toISOString(),
  });
  const submit = (startMin: number, query = '') =>
    bff.app.inject({
      method: 'POST',
      url: `/api/devices/DEV-1/commands${query}`,
      headers: { cookie, 'x-csrf': '1', origin: 'http://127.0.0.1:8080' },
      payload: commandAt(startMin),
    });
  const payloads = () =>
    receiver.requests.map((request) => WebhookPayloadSchema.parse(JSON.parse(request.body)));

  it("tells a command's new status, a spent budget, a withdrawn change and an unbind to the endpoints of their site only", async () => {
    const types = [
      'deviceCommand.statusChanged',
      'device.budgetSpent',
      'site.unbound',
      'change.withdrawn',
    ];
    const { endpoint } = await subscribe({ eventTypes: types, siteIds: ['PLANT-1'] });
    const other = await subscribe({ eventTypes: types, siteIds: ['PLANT-2'] });
    expect((await submit(60)).statusCode).toBe(202);
    expect((await submit(120)).statusCode).toBe(202);
    const refused = await submit(180, '?ifLater=refuse');
    expect(refused.json()).toMatchObject({ code: 'change_would_wait' });
    const queued = QueuedAnswerSchema.parse((await submit(240)).json()).queued;
    const withdrawn = await sendSignedIn(
      bff.app,
      cookie,
      'DELETE',
      `/api/changes/${queued.changeId}`,
    );
    expect(withdrawn.statusCode, withdrawn.body).toBeLessThan(300);
    await bff.app.readModel.model.recordSiteUnbound(
      { region: 'eu', clientId: 'client' },
      'PLANT-1',
    );
    // A queued change's end is written right after its own transaction, not in it.
    await vi.waitFor(
      async () => {
        const types = (await deliveriesOf(endpoint.id)).map((d) => d.eventType);
        expect(types).toContain('change.withdrawn');
      },
      { timeout: 5_000, interval: 20 },
    );
    await deliverDue();

    const received = payloads();
    expect(received.map((payload) => payload.type)).toEqual(
      expect.arrayContaining(['deviceCommand.statusChanged', 'device.budgetSpent', 'site.unbound']),
    );
    expect(
      received.find((payload) => payload.type === 'deviceCommand.statusChanged'),
    ).toMatchObject({
      data: {
        region: 'eu',
        siteId: 'PLANT-1',
        deviceId: 'DEV-1',
        commandId: 'cmd_1',
        links: { command: '/api/devices/DEV-1/commands/cmd_1' },
      },
    });
    expect(received.find((payload) => payload.type === 'device.budgetSpent')).toMatchObject({
      data: { deviceId: 'DEV-1', state: 'spent', links: { changes: '/api/devices/DEV-1/changes' } },
    });
    expect(received.find((payload) => payload.type === 'change.withdrawn')).toMatchObject({
      data: {
        changeId: queued.changeId,
        deviceId: 'DEV-1',
        state: 'withdrawn',
        links: { change: `/api/changes/${queued.changeId}` },
      },
    });
    expect(received.find((payload) => payload.type === 'site.unbound')).toMatchObject({
      data: { siteId: 'PLANT-1', state: 'unbound' },
    });
    expect(await deliveriesOf(other.endpoint.id)).toEqual([]);
    expect((await deliveriesOf(endpoint.id)).every((d) => d.status === 'succeeded')).toBe(true);
  });

  it("does not tell a newly bound site's past: a command first learnt long after it ended", async () => {
    const { endpoint } = await subscribe({ eventTypes: ['deviceCommand.statusChanged'] });
    const account = { region: 'eu' as const, clientId: 'client' };
    const hourMs = 60 * 60_000;
    const nowMs = bff.app.upstreamNow();
    const record = (id: string, endMs: number, status: 'completed' | 'received') => ({
      id,
      deviceId: 'DEV-1',
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(endMs - hourMs).toISOString(),
      endTime: new Date(endMs).toISOString(),
      status,
      receivedAt: new Date(endMs - 2 * hourMs).toISOString(),
    });
    await bff.app.deviceCommands.recordSubmitted(
      account,
      'DEV-1',
      record('old_1', nowMs - 3 * hourMs, 'completed'),
    );
    await bff.app.deviceCommands.recordSubmitted(
      account,
      'DEV-1',
      record('new_1', nowMs + 3 * hourMs, 'received'),
    );
    await deliverDue();
    const commands = (await deliveriesOf(endpoint.id)).map(
      (d) => (d.payload as { data: { commandId: string } }).data.commandId,
    );
    expect(commands).toEqual(['new_1']);
  });
});
