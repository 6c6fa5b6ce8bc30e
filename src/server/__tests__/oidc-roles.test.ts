import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { startTestIdp, type TestIdp } from '#test/support/test-idp.ts';
import {
  VendorConnectionListSchema,
  VendorConnectionSavedSchema,
  VendorConnectionStateSchema,
} from '#domain/connections.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import { routeTable } from '../http/route-table.ts';
import { CSRF, ORIGIN, buildTestBff, type TestBff } from './support/bff.ts';
import {
  startFakeUpstream,
  vendorPage,
  vendorSite,
  type FakeUpstream,
} from './support/fake-upstream.ts';
import { oidcEnvFor, signInThroughIdp } from './support/idp-sign-in.ts';

const SAFE = new Set(['GET', 'HEAD']);
/** A URL for a route pattern: every `:param` gets a valid ID. */
const concrete = (url: string) =>
  url.replace(/:(\w+)/g, (_m, name: string) => (name === 'region' ? 'eu' : `${name}-1`));

const command = {
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-12-01T11:00:00Z',
  endTime: '2026-12-01T12:00:00Z',
};

describe.each(DATABASE_KINDS)('company sign-in on %s', (kind) => {
  let idp: TestIdp;
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let bff: TestBff;
  const cookies = { viewer: '', dispatcher: '', admin: '' };

  beforeAll(async () => {
    idp = await startTestIdp({ port: 0, redirectOrigins: [ORIGIN] });
    fake = await startFakeUpstream();
    fake.on('POST', '/device/BAT-1/commands', (_request, reply) =>
      reply.code(202).send({ id: 'cmd_1', message: 'accepted', timestamp: '2026-12-01T10:00:00Z' }),
    );
    fake.on('POST', '/sites', () => ({ message: 'onboarding success', siteId: 'PLANT-2' }));
    fake.on('GET', '/sites', () =>
      vendorPage('sites', [vendorSite('PLANT-1', ['BAT-1', 'BAT-2'])]),
    );
    fake.on('GET', '/sites/PLANT-2', () => vendorSite('PLANT-2', ['BAT-3']));
    fake.on('POST', '/devices/commands', (_request, reply) =>
      reply.code(202).send({
        batchCommandId: 'batch_1',
        message: 'accepted',
        timestamp: '2026-12-01T10:00:00Z',
      }),
    );
    testDb = await createTestDatabase(kind);
    bff = await buildTestBff(fake, {
      database: await testDb.open(),
      dataDir: testDb.dataDir,
      oidc: oidcEnvFor(idp.issuer),
    });
    bff.clock.nowMs = Date.now();
    for (const role of ['viewer', 'dispatcher', 'admin'] as const)
      cookies[role] = await signInThroughIdp(bff.app, role);
  });
  afterAll(async () => {
    await bff.app.close();
    await testDb.drop();
    await fake.close();
    await idp.close();
  });
  beforeEach(() => {
    fake.seen.length = 0;
  });

  const call = (
    who: keyof typeof cookies,
    method: string,
    url: string,
    payload?: unknown,
    headers: Record<string, string> = CSRF,
  ) =>
    bff.app.inject({
      method: method as 'GET',
      url,
      headers: { cookie: cookies[who], ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  describe('vendor connections and roles in company sign-in', () => {
    it('tells an operator that no connection exists yet, sending nothing, in words for their role', async () => {
      const response = await call('dispatcher', 'GET', '/api/sites');
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ code: 'no_connection' });
      expect(response.json().detail).toContain('Only an administrator can register it');
      expect(response.json().detail).toContain('Ask an administrator');
      const asAdmin = await call('admin', 'GET', '/api/sites');
      expect(asAdmin.json().detail).toContain(
        'Register the client ID and secret the vendor issued for Europe on the Connections page',
      );
      const state = await call('viewer', 'GET', '/api/connections/eu');
      expect(VendorConnectionStateSchema.parse(state.json())).toEqual({
        region: 'eu',
        registered: false,
      });
      // The audit reads the BFF's own records: there before any connection.
      expect((await call('viewer', 'GET', '/api/ledger')).statusCode).toBe(200);
      expect(fake.seen).toHaveLength(0);
    });

    it('refuses new credentials the token endpoint refuses, saving nothing, and audits the attempt', async () => {
      const before = fake.tokenRequests;
      const refused = await call('admin', 'PUT', '/api/connections/eu', {
        clientId: 'client',
        clientSecret: 'wrong',
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toMatchObject({ code: 'connection_refused' });
      expect(refused.json().detail).toContain('the connection was not saved');
      expect(fake.tokenRequests).toBeGreaterThan(before);
      const list = await call('admin', 'GET', '/api/connections');
      expect(VendorConnectionListSchema.parse(list.json()).connections).toEqual([]);
      const audit = LedgerPageSchema.parse(
        (await call('viewer', 'GET', '/api/ledger?kind=connection')).json(),
      );
      expect(audit.entries).toMatchObject([
        {
          kind: 'connection',
          state: 'failed',
          region: 'eu',
          clientId: 'client',
          operator: { subject: 'admin', name: 'Ada Admin' },
          request: { change: 'register', clientId: 'client' },
          outcome: { status: 422, error: { code: 'connection_refused' }, checked: true },
        },
      ]);
      expect(JSON.stringify(audit)).not.toContain('wrong');
    });

    it('does not save credentials it could not check unless asked to, and says which', async () => {
      fake.tokenFault = { status: 503 };
      try {
        const unchecked = await call('admin', 'PUT', '/api/connections/au', {
          clientId: 'client',
          clientSecret: 'secret',
        });
        expect(unchecked.statusCode).toBe(503);
        expect(unchecked.json()).toMatchObject({ code: 'connection_unchecked' });
        expect(
          VendorConnectionListSchema.parse((await call('admin', 'GET', '/api/connections')).json())
            .connections,
        ).toEqual([]);
        const saved = await call('admin', 'PUT', '/api/connections/au', {
          clientId: 'client',
          clientSecret: 'secret',
          saveUnchecked: true,
        });
        expect(saved.statusCode).toBe(200);
        expect(VendorConnectionSavedSchema.parse(saved.json())).toEqual({ checked: false });
      } finally {
        fake.tokenFault = undefined;
      }
      // Refused credentials are never saved, even when asked to save unchecked.
      const wrong = await call('admin', 'PUT', '/api/connections/au', {
        clientId: 'client',
        clientSecret: 'wrong',
        saveUnchecked: true,
      });
      expect(wrong.statusCode).toBe(422);
    });

    it('lets only an administrator register a connection, and never shows its secret', async () => {
      for (const who of ['viewer', 'dispatcher'] as const) {
        const refused = await call(who, 'PUT', '/api/connections/eu', {
          clientId: 'client-2',
          clientSecret: 'secret-2',
        });
        expect(refused.statusCode).toBe(403);
        expect(refused.json().code).toBe('forbidden_role');
      }
      const put = await call('admin', 'PUT', '/api/connections/eu', {
        clientId: 'client',
        clientSecret: 'secret',
      });
      expect(put.statusCode).toBe(200);
      expect(VendorConnectionSavedSchema.parse(put.json())).toEqual({ checked: true });
      const list = await call('admin', 'GET', '/api/connections');
      expect(
        VendorConnectionListSchema.parse(list.json()).connections.find((c) => c.region === 'eu'),
      ).toEqual({
        region: 'eu',
        clientId: 'client',
        updatedAt: expect.any(String),
        updatedBy: 'Ada Admin',
      });
      expect(list.body).not.toContain('secret');
      const stored = await (
        await testDb.open()
      ).db.execute('select secret_ciphertext from bff.vendor_connections');
      expect(JSON.stringify(stored)).not.toContain('"secret"');
      expect((await call('dispatcher', 'GET', '/api/connections/eu')).json()).toEqual({
        region: 'eu',
        registered: true,
      });
    });

    it('checks a saved connection by requesting a token, and says when it is refused', async () => {
      const before = fake.tokenRequests;
      const ok = await call('admin', 'POST', '/api/connections/eu/check', {});
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ ok: true, expiresInS: 3600 });
      expect(fake.tokenRequests).toBeGreaterThan(before);

      fake.clientSecret = 'rotated-at-the-vendor';
      try {
        const refused = await call('admin', 'POST', '/api/connections/au/check', {});
        expect(refused.statusCode).toBe(502);
        expect(refused.json().code).toBe('connection_refused');
      } finally {
        fake.clientSecret = 'secret';
      }
    });

    it("lets a dispatcher act through the administrator's connection", async () => {
      const response = await call('dispatcher', 'POST', '/api/devices/BAT-1/commands', command, {
        ...CSRF,
        'idempotency-key': 'dispatch-1',
      });
      expect(response.statusCode).toBe(202);
      const sent = fake.seen.filter((request) => request.method === 'POST');
      expect(sent).toHaveLength(1);
      expect(fake.clientOf(sent[0] as never)).toBe('client');
    });

    it("lets an administrator's API token act through the connection, recorded under the token and its maker", async () => {
      const asDispatcher = await call('dispatcher', 'POST', '/api/tokens', {
        name: 'desk',
        role: 'dispatcher',
        expiresInDays: 30,
      });
      expect(asDispatcher.json()).toMatchObject({ status: 403, code: 'forbidden_role' });
      const made = await call('admin', 'POST', '/api/tokens', {
        name: 'trading desk',
        role: 'dispatcher',
        expiresInDays: 30,
      });
      expect(made.statusCode).toBe(201);
      const { secret, token } = made.json() as { secret: string; token: { clientId: string } };
      expect(token.clientId).toBe('client');
      const sent = await bff.app.inject({
        method: 'POST',
        url: '/api/devices/BAT-1/commands',
        headers: { authorization: `Bearer ${secret}`, 'idempotency-key': 'token-1' },
        payload: { ...command, startTime: '2026-12-01T13:00:00Z', endTime: '2026-12-01T14:00:00Z' },
      });
      expect(sent.statusCode, sent.body).toBe(202);
      expect(fake.clientOf(fake.seen.find((r) => r.method === 'POST') as never)).toBe('client');
      const ledger = LedgerPageSchema.parse((await call('admin', 'GET', '/api/ledger')).json());
      // The company's audit shows it, as the token's and its maker's.
      expect(ledger.entries[0]).toMatchObject({
        kind: 'submit',
        operatorName: 'trading desk (API token made by Ada Admin)',
      });
    });

    it('refuses a viewer every state-changing route with 403 forbidden_role, sending nothing', async () => {
      // Every role signs itself out, marks its own notifications read, and watches a running window
      // (a read the BFF paces at one per five minutes, whoever watches).
      const ownOnly = ['/api/session', '/api/notifications/read', '/api/devices/:deviceId/watch'];
      const changing = routeTable(bff.app).filter(
        (r) =>
          r.url.startsWith('/api') &&
          !SAFE.has(r.method) &&
          !ownOnly.some((own) => r.url.startsWith(own)),
      );
      const refused = new Set<string>();
      for (const route of changing) {
        const response = await call('viewer', route.method, concrete(route.url), {});
        if (response.statusCode === 405) continue;
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(403);
        expect(response.json().code).toBe('forbidden_role');
        refused.add(`${route.method} ${route.url}`);
      }
      expect([...refused].sort()).toEqual(
        [
          'POST /api/sites',
          'DELETE /api/sites/:siteId',
          'PUT /api/sites/:siteId/time-zone',
          'DELETE /api/sites/:siteId/time-zone',
          'POST /api/devices/:deviceId/commands',
          'PUT /api/devices/:deviceId/commands/:commandId/cancel',
          'POST /api/devices/:deviceId/changes',
          'DELETE /api/changes/:changeId',
          'POST /api/batches',
          'PUT /api/batches/:batchCommandId/cancel',
          'PUT /api/connections/:region',
          'POST /api/connections/:region/check',
          'POST /api/fleet-jobs',
          'POST /api/fleet-jobs/:jobId/:action',
          'POST /api/fleet-plans',
          'POST /api/fleet-plans/check',
          'POST /api/deliverable',
          'POST /api/tokens',
          'DELETE /api/tokens/:tokenId',
          'POST /api/webhooks',
          'PATCH /api/webhooks/:endpointId',
          'DELETE /api/webhooks/:endpointId',
          'POST /api/webhooks/:endpointId/rotate-secret',
          'POST /api/webhooks/:endpointId/test',
          'POST /api/webhooks/:endpointId/deliveries/:deliveryId/redeliver',
          'POST /api/webhooks/:endpointId/redeliver',
        ].sort(),
      );
      // Nothing sent on the viewer's behalf; the read model's own refresh reads (of the command
      // the dispatcher sent before) may run meanwhile.
      expect(fake.seen.filter((request) => request.method !== 'GET')).toEqual([]);
    });

    it('refuses a dispatcher site bindings and connections, and lets an administrator bind', async () => {
      const bind = await call('dispatcher', 'POST', '/api/sites', { siteId: 'PLANT-1' });
      expect(bind.statusCode).toBe(403);
      expect(bind.json().detail).toContain('only an administrator may manage vendor connections');
      expect(fake.seen).toHaveLength(0);
      const asAdmin = await call('admin', 'POST', '/api/sites', { siteId: 'PLANT-2' });
      expect(asAdmin.statusCode).toBe(201);
    });

    it('keeps CSRF and the origin check on every route of company sign-in', async () => {
      const table = routeTable(bff.app).filter((r) => r.url.startsWith('/api'));
      for (const route of table) {
        const url = concrete(route.url);
        if (SAFE.has(route.method)) {
          if (route.method === 'HEAD') continue;
          const crossSite = await call('admin', 'GET', url, undefined, {
            'sec-fetch-site': 'cross-site',
          });
          // The IdP's redirect back is the one cross-site arrival; its state check defends it.
          if (route.url === '/api/session/oidc/callback')
            expect(crossSite.headers.location).toBe('/sign-in?refused=response_mismatch');
          else expect(crossSite.json().code, `GET ${route.url}`).toBe('csrf');
          continue;
        }
        for (const headers of <Record<string, string>[]>[
          { origin: ORIGIN },
          { 'x-csrf': '1', origin: 'https://evil.example' },
        ]) {
          const response = await call('admin', route.method, url, {}, headers);
          expect(response.statusCode, `${route.method} ${route.url}`).toBe(403);
          expect(response.json().code).toBe('csrf');
        }
      }
      expect(fake.seen).toHaveLength(0);
    });

    it('records who did what in the ledger: issuer, subject, name and e-mail at that time', async () => {
      const all = LedgerPageSchema.parse((await call('viewer', 'GET', '/api/ledger')).json());
      // The dispatcher's own submission (an API token's is recorded apart).
      const submit = all.entries.find(
        (entry) => entry.kind === 'submit' && entry.operator?.subject === 'dispatcher',
      );
      expect(submit?.operator).toEqual({
        issuer: idp.issuer,
        subject: 'dispatcher',
        name: 'Dan Dispatcher',
        email: 'dan.dispatcher@example.com',
      });
      expect(submit?.operatorName).toBe('Dan Dispatcher');
      const bind = all.entries.find((entry) => entry.kind === 'bind');
      expect(bind?.operator).toMatchObject({ subject: 'admin', name: 'Ada Admin' });
      // Connection changes are there too, with who and when.
      const registered = all.entries.find(
        (entry) => entry.kind === 'connection' && entry.state === 'succeeded',
      );
      expect(registered).toMatchObject({
        region: 'eu',
        clientId: 'client',
        operator: { subject: 'admin', name: 'Ada Admin', email: 'ada.admin@example.com' },
        request: { change: 'register', clientId: 'client' },
        outcome: { checked: true },
        createdAt: expect.any(String),
        completedAt: expect.any(String),
      });

      const mine = LedgerPageSchema.parse(
        (await call('viewer', 'GET', '/api/ledger?operator=admin')).json(),
      );
      expect(mine.entries.length).toBeGreaterThan(0);
      expect(mine.entries.every((entry) => entry.operator?.subject === 'admin')).toBe(true);
    });

    it('records each batch a fleet job sends as the person who made the job', async () => {
      await bff.app.fleetJobsStarted();
      const created = await call('dispatcher', 'POST', '/api/fleet-jobs', {
        selection: { deviceIds: ['BAT-1', 'BAT-2'] },
        command: { ...command, startTime: '2026-12-02T11:00:00Z', endTime: '2026-12-02T12:00:00Z' },
      });
      expect(created.statusCode).toBe(202);
      await vi.waitFor(
        () =>
          expect(fake.seen.filter((request) => request.url === '/devices/commands')).toHaveLength(
            1,
          ),
        { timeout: 10_000 },
      );
      await vi.waitFor(
        async () => {
          const all = LedgerPageSchema.parse((await call('viewer', 'GET', '/api/ledger')).json());
          expect(all.entries.find((entry) => entry.kind === 'batch')?.operator).toEqual({
            issuer: idp.issuer,
            subject: 'dispatcher',
            name: 'Dan Dispatcher',
            email: 'dan.dispatcher@example.com',
          });
        },
        { timeout: 10_000 },
      );
    });

    it("refuses to record an undo of another person's change", async () => {
      const response = await call(
        'admin',
        'PUT',
        '/api/devices/BAT-1/commands/cmd_1/cancel',
        {},
        { ...CSRF, 'idempotency-key': 'undo-1', 'powerdeck-undo-of': 'dispatch-1' },
      );
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('invalid_undo_of');
    });

    it('uses a replaced connection from then on, and audits the replacement', async () => {
      const put = await call('admin', 'PUT', '/api/connections/eu', {
        clientId: 'client-2',
        clientSecret: 'secret-2',
      });
      expect(put.statusCode).toBe(200);
      const response = await call('viewer', 'GET', '/api/sites');
      expect(response.statusCode).toBe(200);
      expect(fake.clientOf(fake.seen.at(-1) as never)).toBe('client-2');
      const [latest] = LedgerPageSchema.parse(
        (await call('viewer', 'GET', '/api/ledger?kind=connection&limit=1')).json(),
      ).entries;
      expect(latest).toMatchObject({
        state: 'succeeded',
        clientId: 'client-2',
        request: { change: 'replace', clientId: 'client-2', previousClientId: 'client' },
      });
    });

    it('says an administrator must replace a connection the vendor no longer accepts', async () => {
      await call('admin', 'PUT', '/api/connections/eu', {
        clientId: 'client',
        clientSecret: 'secret',
      });
      fake.clientSecret = 'rotated-at-the-vendor';
      try {
        const response = await call('dispatcher', 'GET', '/api/sites');
        expect(response.statusCode).toBe(503);
        expect(response.json()).toMatchObject({ code: 'no_connection' });
        expect(response.json().detail).toContain('Ask an administrator to replace it');
        // The operator's own session goes on.
        expect((await call('dispatcher', 'GET', '/api/session')).statusCode).toBe(200);
      } finally {
        fake.clientSecret = 'secret';
      }
    });

    it('lets every role sign out', async () => {
      const response = await call('viewer', 'DELETE', '/api/session');
      expect(response.statusCode).toBe(200);
      expect((await call('viewer', 'GET', '/api/session')).statusCode).toBe(401);
    });
  });
});
