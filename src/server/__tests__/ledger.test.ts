import type { FastifyReply } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, type TestDatabase } from '#test/support/databases.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { CSRF, buildTestBff, signIn, type TestBff } from './support/bff.ts';
import { vendorError, vendorPage, vendorSite, type FakeUpstream } from './support/fake-upstream.ts';
import {
  SUBMITTED_COMMAND as command,
  DEVICE_TABLES,
  emptyBffTables,
  readLedger,
  startFakeAndDatabase,
  stopFakeAndDatabase,
} from './support/ledger-setup.ts';

/** How the fake answers the next submissions: store and 202, store and then fail, or refuse. */
type Mode = 'accept' | 'acceptThen500' | 'refuse409' | 'acceptThenCrash' | 'acceptWithoutId';

describe.each(DATABASE_KINDS)('the command ledger on %s', (kind) => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  let bff: TestBff;
  let cookie: string;
  let mode: Mode = 'accept';
  let stored: { id: string; body: typeof command }[] = [];
  let crash = false;
  /** What the fake's `GET /sites` answers instead of its site list, when set. */
  let sitesBody: string | undefined;

  beforeAll(async () => {
    ({ fake, testDb, database } = await startFakeAndDatabase(kind));
    fake.on('POST', '/device/BAT-1/commands', (request, reply: FastifyReply) => {
      if (mode === 'refuse409')
        return reply.code(409).send(vendorError('TIME_WINDOW_OVERLAP', 'Overlaps cmd_x'));
      const id = `cmd_${stored.length + 1}`;
      stored.push({ id, body: request.body as typeof command });
      if (mode === 'acceptThen500')
        return reply.code(503).send(vendorError('UNAVAILABLE', 'Try later'));
      if (mode === 'acceptWithoutId') return reply.code(202).send({ message: 'accepted' });
      return reply.code(202).send({ id, message: 'accepted', timestamp: '2026-05-01T10:00:00Z' });
    });
    fake.on('GET', '/device/BAT-1/commands', () =>
      vendorPage(
        'commands',
        stored.map(({ id, body }) => ({
          id,
          deviceId: 'BAT-1',
          ...body,
          status: 'received',
          receivedAt: '2026-05-01T10:00:00Z',
        })),
        { deviceId: 'BAT-1' },
      ),
    );
    fake.on('GET', '/sites', (_request, reply: FastifyReply) => {
      if (sitesBody !== undefined) return reply.type('application/json').send(sitesBody);
      return vendorPage('sites', [vendorSite('PLANT-1', ['BAT-1'])]);
    });
  });
  afterAll(() => stopFakeAndDatabase(fake, testDb));
  beforeEach(async () => {
    // The device budget's slots too: a test at the vendor's limit starts with none spent; and the
    // read model, as the fake's commands start afresh: a new window is checked against it.
    await emptyBffTables(database, ['ledger_entries', ...DEVICE_TABLES]);
    stored = [];
    mode = 'accept';
    crash = false;
    sitesBody = undefined;
    fake.seen.length = 0;
    bff = await buildTestBff(fake, {
      database,
      testing: {
        ledgerLeaseMs: 5_000,
        ledgerHooks: {
          afterUpstreamAnswer: () => {
            if (crash) throw new Error('simulated crash between the answer and the ledger write');
          },
        },
      },
    });
    const response = await bff.app.inject({
      method: 'POST',
      url: '/api/session',
      headers: CSRF,
      payload: { region: 'eu', clientId: 'client', clientSecret: 'secret', operatorName: 'Ada' },
    });
    cookie = response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    return () => bff.app.close();
  });

  const submit = (key?: string, body: object = command) =>
    bff.app.inject({
      method: 'POST',
      url: '/api/devices/BAT-1/commands',
      headers: { cookie, ...CSRF, ...(key ? { 'idempotency-key': `"${key}"` } : {}) },
      payload: body,
    });
  const ledger = (query = '') => readLedger(bff.app, cookie, query);
  const posts = () => fake.seen.filter((s) => s.method === 'POST').length;

  it('records who, what, when and the outcome of a submission', async () => {
    const response = await submit();
    expect(response.statusCode).toBe(202);
    const [entry] = await ledger();
    expect(entry).toMatchObject({
      kind: 'submit',
      state: 'succeeded',
      region: 'eu',
      clientId: 'client',
      operatorName: 'Ada',
      deviceId: 'BAT-1',
      commandId: 'cmd_1',
      startTime: '2026-05-01T11:00:00.000Z',
      endTime: '2026-05-01T12:00:00.000Z',
      request: command,
      outcome: { status: 202 },
    });
    expect(entry?.completedAt).toBeDefined();
  });

  it('answers the same key and request once upstream, the same answer each time', async () => {
    const first = await submit('k-1');
    const second = await submit('k-1');
    expect(second.statusCode).toBe(202);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(posts()).toBe(1);
    expect(await ledger()).toHaveLength(1);
  });

  it('refuses a key reused for another request with 422', async () => {
    await submit('k-2');
    const other = await submit('k-2', { ...command, powerControl: { targetBatteryPowerW: 1 } });
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe('idempotency_key_reused');
    expect(posts()).toBe(1);
  });

  it('refuses a malformed key with 400 before anything is sent', async () => {
    const response = await submit('has space');
    expect(response.statusCode).toBe(400);
    expect(posts()).toBe(0);
  });

  it('records a refusal as failed and replays it for the same key', async () => {
    mode = 'refuse409';
    const first = await submit('k-3');
    expect(first.statusCode).toBe(409);
    const again = await submit('k-3');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual(first.json());
    expect(posts()).toBe(1);
    const [entry] = await ledger();
    expect(entry).toMatchObject({
      state: 'failed',
      outcome: { status: 409, error: { code: 'window_overlap' } },
    });
  });

  it('marks a 5xx submission unknown, then settles it from the history before sending again', async () => {
    mode = 'acceptThen500';
    const lost = await submit();
    expect(lost.statusCode).toBe(503);
    expect(lost.json().code).toBe('outcome_unknown');
    expect((await ledger())[0]?.state).toBe('unknown');

    mode = 'accept';
    const overlapping = {
      ...command,
      startTime: '2026-05-01T11:30:00Z',
      endTime: '2026-05-01T13:00:00Z',
    };
    // While the upstream may still be working on the lost one, nothing is sent for its window.
    const early = await submit(undefined, overlapping);
    expect(early.statusCode).toBe(409);
    expect(early.json().code).toBe('window_unsettled');
    expect(early.headers['retry-after']).toBeDefined();
    expect(posts()).toBe(1);
    bff.clock.nowMs += 6_000;
    const next = await submit(undefined, overlapping);
    expect(next.statusCode).toBe(202);
    // The history query, not the site list the entry's site is looked up in.
    const historyAt = fake.seen.findIndex(
      (s) => s.method === 'GET' && s.url.startsWith('/device/BAT-1/commands?'),
    );
    const secondPostAt = fake.seen.map((s) => s.method).lastIndexOf('POST');
    expect(historyAt).toBeGreaterThan(-1);
    expect(historyAt).toBeLessThan(secondPostAt);
    const entries = await ledger('?kind=submit');
    expect(entries.map((e) => [e.state, e.commandId, e.outcome?.reconciled])).toEqual([
      ['succeeded', 'cmd_2', undefined],
      ['succeeded', 'cmd_1', 'found'],
    ]);
  });

  it('settles an unknown outcome for a retry with the same key without sending it twice', async () => {
    mode = 'acceptThen500';
    await submit('k-4');
    mode = 'accept';
    const early = await submit('k-4');
    expect(early.statusCode).toBe(409);
    expect(early.json().code).toBe('idempotency_in_progress');
    bff.clock.nowMs += 6_000;
    const retry = await submit('k-4');
    expect(retry.statusCode).toBe(202);
    expect(retry.json()).toMatchObject({ id: 'cmd_1' });
    expect(posts()).toBe(1);
    expect(stored).toHaveLength(1);
  });

  it("answers a retry whose check has no call left as still unsettled, with the device's wait", async () => {
    // At the vendor's one call per minute, the lost submission spent the device's only slot.
    await bff.app.close();
    bff = await buildTestBff(fake, {
      database,
      deviceCallsPerMinute: { eu: 1, au: 1 },
      testing: { ledgerLeaseMs: 5_000 },
    });
    cookie = await signIn(bff.app);
    mode = 'acceptThen500';
    await submit('k-8');
    mode = 'accept';
    bff.clock.nowMs += 6_000;
    const waiting = await submit('k-8');
    expect(waiting.statusCode).toBe(429);
    // Not `device_rate_limited`, which says nothing was sent at all: the device may hold it.
    expect(waiting.json().code).toBe('reconciliation_pending');
    expect(Number(waiting.headers['retry-after'])).toBe(54);
    expect(waiting.json().detail).toMatch(/unknown outcome.*in 54 seconds/);
    bff.clock.nowMs += 54_000;
    const settled = await submit('k-8');
    expect(settled.statusCode).toBe(202);
    expect(settled.json()).toMatchObject({ id: 'cmd_1' });
    expect(posts()).toBe(1);
  });

  it('treats an acceptance that names no command as unknown, and settles it from the history', async () => {
    mode = 'acceptWithoutId';
    const first = await submit('k-7');
    expect(first.statusCode).toBe(502);
    expect(first.json().code).toBe('outcome_unknown');
    expect((await ledger())[0]?.state).toBe('unknown');
    mode = 'accept';
    bff.clock.nowMs += 6_000;
    const retry = await submit('k-7');
    expect(retry.statusCode).toBe(202);
    expect(retry.json()).toMatchObject({ id: 'cmd_1' });
    expect(posts()).toBe(1);
    expect((await ledger())[0]).toMatchObject({ state: 'succeeded', commandId: 'cmd_1' });
  });

  it('re-sends a retry with the same key when the history shows the first never arrived', async () => {
    mode = 'acceptThen500';
    await submit('k-5');
    stored = [];
    mode = 'accept';
    bff.clock.nowMs += 6_000;
    const retry = await submit('k-5');
    expect(retry.statusCode).toBe(202);
    expect(posts()).toBe(2);
    expect(stored).toHaveLength(1);
    expect(await ledger()).toHaveLength(1);
  });

  it('after a crash between the answer and the ledger write: 409 while leased, then exactly one command', async () => {
    crash = true;
    const crashed = await submit('k-6');
    expect(crashed.statusCode).toBe(500);
    crash = false;
    const early = await submit('k-6');
    expect(early.statusCode).toBe(409);
    expect(early.json().code).toBe('idempotency_in_progress');
    expect(early.headers['retry-after']).toBeDefined();
    bff.clock.nowMs += 6_000;
    const settled = await submit('k-6');
    expect(settled.statusCode).toBe(202);
    expect(settled.json()).toMatchObject({ id: 'cmd_1' });
    expect(stored).toHaveLength(1);
    const [entry] = await ledger();
    expect(entry).toMatchObject({ state: 'succeeded', commandId: 'cmd_1' });
  });

  it('filters by device, kind and site', async () => {
    await submit();
    await bff.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: { cookie, ...CSRF },
      payload: { siteId: 'PLANT-1' },
    });
    expect((await ledger()).map((e) => e.kind)).toEqual(['bind', 'submit']);
    expect((await ledger('?deviceId=BAT-1')).map((e) => e.kind)).toEqual(['submit']);
    expect((await ledger('?kind=bind')).map((e) => e.siteId)).toEqual(['PLANT-1']);
    expect((await ledger('?siteId=PLANT-1')).map((e) => e.kind)).toEqual(['bind', 'submit']);
    expect(await ledger('?deviceId=BAT-2')).toEqual([]);
    const bad = await bff.app.inject({
      method: 'GET',
      url: '/api/ledger?limit=9999',
      headers: { cookie },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('answers 502, not 500, when the upstream site list of a site filter is unreadable', async () => {
    for (const body of ['{"sites": [', '{"sites": [{"id": 1}]}']) {
      sitesBody = body;
      const response = await bff.app.inject({
        method: 'GET',
        url: '/api/ledger?siteId=PLANT-1',
        headers: { cookie },
      });
      expect(response.statusCode).toBe(502);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ status: 502, code: 'upstream_error' });
    }
  });

  it('shows a client only its own entries', async () => {
    await submit();
    const otherRegion = await bff.app.inject({
      method: 'POST',
      url: '/api/session',
      headers: CSRF,
      payload: { region: 'au', clientId: 'client', clientSecret: 'secret' },
    });
    const response = await bff.app.inject({
      method: 'GET',
      url: '/api/ledger',
      headers: { cookie: otherRegion.cookies.map((c) => `${c.name}=${c.value}`).join('; ') },
    });
    expect(LedgerPageSchema.parse(response.json()).entries).toEqual([]);
    expect(await ledger()).toHaveLength(1);
  });
});
