import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { NotificationPageSchema } from '#domain/notifications.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import type { Person } from '#domain/account.ts';
import type { Notifications } from '../notifications/notifications.ts';
import { NOTIFICATION_RETENTION_MS } from '../notifications/notifications.ts';
import { CSRF, buildTestBff, signIn, type TestBff } from './support/bff.ts';
import { openEventStream, type ServerSentMessage } from './support/event-stream-client.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';

const account = { region: 'eu', clientId: 'client' } as const;
const alice: Person = { kind: 'named', name: 'Alice' };
const isType = (type: string) => (message: ServerSentMessage) => message.data.type === type;

describe.each(DATABASE_KINDS)('the notification inbox on %s', (kind) => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  let bff: TestBff;
  let notifications: Notifications;
  let aliceCookie: string;
  let bobCookie: string;

  const signInAs = (operatorName: string) => signIn(bff.app, { operatorName });
  const inbox = async (cookie: string, query = '') => {
    const response = await bff.app.inject({
      url: `/api/notifications${query}`,
      headers: { cookie },
    });
    expect(response.statusCode).toBe(200);
    return NotificationPageSchema.parse(response.json());
  };
  const markRead = (cookie: string, payload: Record<string, unknown>) =>
    bff.app.inject({
      method: 'POST',
      url: '/api/notifications/read',
      headers: { cookie, ...CSRF },
      payload,
    });
  const batchFailed = (madeBy: Person, batchCommandId = 'batch_1') =>
    notifications.notify({
      account,
      kind: 'batchDevicesFailed',
      batchCommandId,
      failedDevices: 2,
      totalDevices: 5,
      madeBy,
    });

  beforeAll(async () => {
    fake = await startFakeUpstream();
    testDb = await createTestDatabase(kind);
    database = await testDb.open();
    bff = await buildTestBff(fake, { database, testRoutes: true });
    await bff.app.ready();
    const live = bff.app.liveUpdates;
    notifications = live.notifications;
    aliceCookie = await signInAs('Alice');
    bobCookie = await signInAs('Bob');
  });
  afterAll(async () => {
    await bff?.app.close();
    await fake?.close();
    await testDb?.drop();
  });

  it("lists a person's notifications newest first, with the unread count, in pages", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await batchFailed(alice, `batch_page_${i}`));
    const first = await inbox(aliceCookie, '?limit=2');
    expect(first.notifications.map((n) => n.id)).toEqual([ids[2], ids[1]]);
    expect(first.unreadCount).toBe(3);
    expect(first.notifications[0]).toEqual({
      id: ids[2],
      kind: 'batchDevicesFailed',
      title: 'Batch: 2 of 5 devices failed',
      body: expect.stringContaining('Open the batch'),
      link: '/batches/batch_page_2',
      createdAt: new Date(bff.clock.nowMs).toISOString(),
    });
    expect(first.nextBefore).toBe(ids[1]);
    const second = await inbox(aliceCookie, `?limit=2&before=${first.nextBefore}`);
    expect(second.notifications.map((n) => n.id)).toEqual([ids[0]]);
    expect(second.nextBefore).toBeUndefined();

    // Bob sees none of Alice's.
    expect(await inbox(bobCookie)).toEqual({ notifications: [], unreadCount: 0 });
    await markRead(aliceCookie, { all: true });
  });

  it('shows a notification for everyone to all but who did it, each reading it on their own', async () => {
    const carol = await signInAs('Carol');
    const id = await notifications.notify({
      account,
      kind: 'siteUnbound',
      siteId: 'PLANT-9',
      unboundBy: { person: alice, name: 'Alice' },
    });
    expect((await inbox(aliceCookie)).notifications.some((n) => n.id === id)).toBe(false);
    const bobs = await inbox(bobCookie);
    expect(bobs.notifications[0]).toMatchObject({ id, title: 'Site PLANT-9 unbound' });
    expect(bobs.unreadCount).toBe(1);
    const read = await markRead(bobCookie, { ids: [id] });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ unreadCount: 0 });
    expect((await inbox(bobCookie)).notifications[0]?.readAt).toBe(
      new Date(bff.clock.nowMs).toISOString(),
    );
    // Carol, who signed in later, still has it unread; another account never sees it.
    expect((await inbox(carol)).unreadCount).toBe(1);
    const other = await signIn(bff.app, { clientId: 'client-2', clientSecret: 'secret-2' });
    expect((await inbox(other)).notifications).toEqual([]);
    await markRead(carol, { all: true });
  });

  it("tells a disabled webhook to the account's administrators only", async () => {
    const id = await notifications.notify({
      account,
      kind: 'webhookEndpointDisabled',
      endpointId: 'ep_0123456789abcdef',
      url: 'https://hooks.example.com/powerdeck',
      reason: 'gone',
    });
    if (!id) throw new Error('nobody was told');
    // A credentials-form sign-in may do everything: an administrator.
    const alices = await inbox(aliceCookie);
    expect(alices.notifications[0]).toMatchObject({
      id,
      title: 'Webhook to https://hooks.example.com/powerdeck disabled',
      link: '/webhooks',
    });
    const page = (role: 'viewer' | 'dispatcher' | 'admin') =>
      notifications.page(account, { kind: 'named', name: 'Dana' }, { limit: 50 }, role);
    for (const role of ['viewer', 'dispatcher'] as const) {
      const seen = await page(role);
      expect(
        seen.notifications.some((n) => n.id === id),
        role,
      ).toBe(false);
      expect(
        await notifications.unreadCount(account, { kind: 'named', name: 'Dana' }, undefined, role),
      ).toBe(seen.unreadCount);
    }
    expect((await page('admin')).notifications.some((n) => n.id === id)).toBe(true);
    await markRead(aliceCookie, { all: true });
    await markRead(bobCookie, { all: true });
  });

  it("marks some or all read, never another person's, and leaves a newer one unread", async () => {
    const older = await batchFailed(alice, 'batch_a');
    const bobsOwn = await batchFailed({ kind: 'named', name: 'Bob' }, 'batch_b');
    const seen = await batchFailed(alice, 'batch_c');
    const newer = await batchFailed(alice, 'batch_d');
    if (!older || !bobsOwn || !seen || !newer) throw new Error('not notified');

    const some = await markRead(aliceCookie, { ids: [older, bobsOwn] });
    expect(some.json()).toEqual({ unreadCount: 2 });
    expect((await inbox(bobCookie)).unreadCount).toBe(1);

    const all = await markRead(aliceCookie, { all: true, throughId: seen });
    expect(all.json()).toEqual({ unreadCount: 1 });
    const after = await inbox(aliceCookie);
    expect(after.notifications.filter((n) => !n.readAt).map((n) => n.id)).toEqual([newer]);
    await markRead(aliceCookie, { all: true });
    await markRead(bobCookie, { all: true });
  });

  it('pushes a new notification to its recipient only, and a read to every tab of the reader', async () => {
    const aliceTab = await openEventStream(bff.app, aliceCookie);
    const aliceOtherTab = await openEventStream(bff.app, aliceCookie);
    const bobTab = await openEventStream(bff.app, bobCookie);
    try {
      await Promise.all([aliceTab, aliceOtherTab, bobTab].map((s) => s.waitFor(isType('ready'))));
      const id = await batchFailed(alice, 'batch_push');
      const created = await aliceTab.waitFor(isType('notificationCreated'));
      expect(created.data.data).toEqual({ notificationId: id });
      await markRead(aliceCookie, { ids: [id] });
      const read = await aliceOtherTab.waitFor(isType('notificationsRead'));
      expect(read.data.data).toEqual({ notificationIds: [id] });
      // Bob's stream saw neither: a later event for everyone arrives first.
      await bff.app.liveUpdates.events.publish(account, {
        type: 'siteBindingsChanged',
        data: {},
      });
      await bobTab.waitFor(isType('siteBindingsChanged'));
      expect(bobTab.messages.map((m) => m.data.type)).toEqual(['ready', 'siteBindingsChanged']);
    } finally {
      for (const s of [aliceTab, aliceOtherTab, bobTab]) s.close();
    }
  });

  it('keeps and pushes nothing when the caller transaction rolls back', async () => {
    const before = await inbox(aliceCookie);
    await database.db
      .transaction(async (tx) => {
        await notifications.notify(
          {
            account,
            kind: 'commandCancelled',
            deviceId: 'BAT-1',
            commandId: 'cmd_rolled_back',
            cancelReason: 'deviceFault',
            madeBy: alice,
          },
          { tx },
        );
        throw new Error('the caller fails');
      })
      .catch(() => undefined);
    expect(await inbox(aliceCookie)).toEqual(before);
  });

  it('refuses bad input, a missing CSRF proof and anonymous readers', async () => {
    expect((await markRead(aliceCookie, { ids: [] })).statusCode).toBe(400);
    expect((await markRead(aliceCookie, { ids: ['1'], all: true })).statusCode).toBe(400);
    const noCsrf = await bff.app.inject({
      method: 'POST',
      url: '/api/notifications/read',
      headers: { cookie: aliceCookie },
      payload: { all: true },
    });
    expect(noCsrf.statusCode).toBe(403);
    const limit = await bff.app.inject({
      url: '/api/notifications?limit=1000',
      headers: { cookie: aliceCookie },
    });
    expect(limit.statusCode).toBe(400);
    expect((await bff.app.inject({ url: '/api/notifications' })).statusCode).toBe(401);
  });

  it('makes a notification through the test-only route as the signed-in person', async () => {
    const made = await bff.app.inject({
      method: 'POST',
      url: '/api/test/notifications',
      headers: { cookie: aliceCookie, ...CSRF },
      payload: { kind: 'siteUnbound', siteId: 'PLANT-TEST' },
    });
    expect(made.statusCode).toBe(201);
    const bobs = await inbox(bobCookie);
    expect(bobs.notifications[0]).toMatchObject({
      title: 'Site PLANT-TEST unbound',
      body: expect.stringMatching(/^Alice unbound it\./),
    });
    await markRead(bobCookie, { all: true });
  });

  it('prunes notifications older than the retention, read or not', async () => {
    const old = await batchFailed(alice, 'batch_old');
    bff.clock.nowMs += NOTIFICATION_RETENTION_MS + 1000;
    try {
      const kept = await batchFailed(alice, 'batch_kept');
      await notifications.prune();
      const fresh = await signInAs('Alice');
      const ids = (await inbox(fresh)).notifications.map((n) => n.id);
      expect(ids).toContain(kept);
      expect(ids).not.toContain(old);
    } finally {
      bff.clock.nowMs -= NOTIFICATION_RETENTION_MS + 1000;
    }
  });

  it('has no test route unless asked', async () => {
    const plain = await buildTestBff(fake, { database });
    try {
      const cookie = await signIn(plain.app);
      const testRoute = await plain.app.inject({
        method: 'POST',
        url: '/api/test/notifications',
        headers: { cookie, ...CSRF },
        payload: { kind: 'siteUnbound', siteId: 'PLANT-1' },
      });
      expect(testRoute.statusCode).toBe(404);
    } finally {
      await plain.app.close();
    }
  });
});
