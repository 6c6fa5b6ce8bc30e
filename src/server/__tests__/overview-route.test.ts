import type { FastifyReply } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { OverviewSchema, type Overview } from '#domain/overview.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { openBffStorage } from '../db/storage.ts';
import { CSRF, buildTestBff, signIn, type TestBff } from './support/bff.ts';
import {
  startFakeUpstream,
  vendorCommand,
  vendorDevice,
  vendorError,
  vendorPage,
  vendorSite,
  type FakeUpstream,
} from './support/fake-upstream.ts';

/** The test BFF's clock starts at 10:00 UTC; this window starts 20 minutes later (the session's idle timeout is 30). */
const window = { startTime: '2026-05-01T10:20:00Z', endTime: '2026-05-01T11:20:00Z' };
const command = { powerControl: { targetBatteryPowerW: -3000 }, ...window };
const PLANT_1 = vendorSite('PLANT-1', [], {
  devices: [
    vendorDevice('BAT-1', 'PLANT-1', { name: 'Hall A' }),
    vendorDevice('BAT-2', 'PLANT-1', { online: false }),
  ],
});
const PLANT_2 = vendorSite('PLANT-2', [], {
  devices: [vendorDevice('BAT-3', 'PLANT-2', { faultStatus: true })],
});
const SITES = vendorPage('sites', [PLANT_1, PLANT_2]);
/** The site list once PLANT-1 is unbound. */
const SITES_AFTER_UNBIND = vendorPage('sites', [PLANT_2]);

describe('GET /api/overview', () => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  let bff: TestBff;
  let cookie: string;
  let cancelReason: string | undefined;
  let plant1Unbound = false;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    testDb = await createTestDatabase('pglite');
    database = await testDb.open();
    await openBffStorage({ database });
    fake.on('GET', '/sites', () => (plant1Unbound ? SITES_AFTER_UNBIND : SITES));
    fake.on('DELETE', '/sites/PLANT-1', () => {
      plant1Unbound = true;
      return { message: 'offboarding success' };
    });
    fake.on('POST', '/device/BAT-1/commands', (_request, reply: FastifyReply) =>
      reply.code(202).send({ id: 'cmd_1', message: 'ok', timestamp: '2026-05-01T10:00:00Z' }),
    );
    fake.on('POST', '/device/BAT-2/commands', (_request, reply: FastifyReply) =>
      reply.code(409).send(vendorError('TIME_WINDOW_OVERLAP', 'Overlaps cmd_9')),
    );
    const record = () =>
      vendorCommand({
        id: 'cmd_1',
        deviceId: 'BAT-1',
        ...command,
        status: cancelReason ? 'cancelled' : 'received',
        receivedAt: '2026-05-01T10:00:00Z',
        ...(cancelReason ? { cancelledAt: '2026-05-01T10:20:30Z', cancelReason } : {}),
      });
    fake.on('GET', '/devices/BAT-1/commands/cmd_1', record);
    // The read model reads the device's history (one page) rather than the status.
    fake.on('GET', '/device/BAT-1/commands', () => ({
      total: 1,
      page: 1,
      size: 100,
      commands: [record()],
    }));
  });
  afterAll(async () => {
    await fake.close();
    await testDb.drop();
  });
  beforeEach(async () => {
    await database.db.execute('delete from bff.ledger_entries');
    cancelReason = undefined;
    plant1Unbound = false;
    bff = await buildTestBff(fake, { database, logger: false });
    // Each test meets a vendor account the read model knows nothing of.
    await bff.app.forgetUpstream();
    cookie = await signIn(bff.app);
    fake.seen.length = 0;
    return () => bff.app.close();
  });

  const overview = async (query = ''): Promise<Overview> => {
    const response = await bff.app.inject({
      method: 'GET',
      url: `/api/overview${query}`,
      headers: { cookie },
    });
    expect(response.statusCode, response.body).toBe(200);
    return OverviewSchema.parse(response.json());
  };
  const submit = (deviceId: string) =>
    bff.app.inject({
      method: 'POST',
      url: `/api/devices/${deviceId}/commands`,
      headers: { cookie, ...CSRF },
      payload: command,
    });

  it('places a command by its window on the vendor clock: upcoming, then executing', async () => {
    expect((await submit('BAT-1')).statusCode).toBe(202);
    const before = await overview('?region=eu');
    expect(before.upcoming).toMatchObject([
      {
        deviceId: 'BAT-1',
        deviceName: 'Hall A',
        siteId: 'PLANT-1',
        timeZone: 'Europe/Berlin',
        commandId: 'cmd_1',
        // As the ledger writes times.
        startTime: '2026-05-01T10:20:00.000Z',
        endTime: '2026-05-01T11:20:00.000Z',
      },
    ]);
    expect(before.executing).toEqual([]);
    bff.clock.nowMs = Date.parse('2026-05-01T10:25:00Z');
    const after = await overview();
    expect(after.upcoming).toEqual([]);
    expect(after.executing.map((line) => line.commandId)).toEqual(['cmd_1']);
    expect(after.generatedAt).toBe('2026-05-01T10:25:00.000Z');
  });

  it('says why a command ended: the reason the read model learnt, a refusal', async () => {
    await submit('BAT-1');
    expect((await submit('BAT-2')).statusCode).toBe(409);
    cancelReason = 'deviceFault';
    // The read model learns the cancellation at the device's next read, whoever polls: the one
    // due just after its window's start, here once the vendor cancelled it (10:20:30).
    await bff.app.readModel.reads.runDue();
    bff.clock.nowMs = Date.parse('2026-05-01T10:21:00Z');
    await bff.app.readModel.reads.runDue();
    const { attention, cancelledByOperator, upcoming } = await overview();
    expect(upcoming).toEqual([]);
    // Neither was an operator's wish: both need attention.
    expect(cancelledByOperator).toEqual([]);
    expect(attention).toHaveLength(2);
    expect(attention).toContainEqual(
      expect.objectContaining({
        commandId: 'cmd_1',
        status: 'cancelled',
        cancelReason: 'deviceFault',
      }),
    );
    const refused = attention.find((line) => line.deviceId === 'BAT-2');
    expect(refused?.refusal).toMatch(/overlap/i);
  });

  it('leaves out a command the upstream forgot (a sandbox reset), though the ledger holds it', async () => {
    await submit('BAT-1');
    expect((await overview()).upcoming.map((line) => line.commandId)).toEqual(['cmd_1']);
    await bff.app.forgetUpstream();
    expect((await overview()).upcoming).toEqual([]);
  });

  it('shows nothing of the devices of a site unbound since, though the ledger keeps what was sent', async () => {
    await submit('BAT-1');
    await bff.app.readModel.reads.runDue();
    expect((await overview()).upcoming.map((line) => line.commandId)).toEqual(['cmd_1']);
    const unbind = await bff.app.inject({
      method: 'DELETE',
      url: '/api/sites/PLANT-1',
      headers: { cookie, ...CSRF },
    });
    expect(unbind.statusCode).toBe(204);
    const after = await overview();
    expect(JSON.stringify(after)).not.toMatch(/BAT-1|BAT-2|PLANT-1|cmd_1/);
    expect(after.trouble.map((line) => line.deviceId)).toEqual(['BAT-3']);
    // The audit still says who sent what, and the unbind itself.
    const ledger = await bff.app.inject({ method: 'GET', url: '/api/ledger', headers: { cookie } });
    expect(
      (ledger.json() as { entries: { kind: string }[] }).entries.map((entry) => entry.kind),
    ).toEqual(['unbind', 'submit']);
  });

  it('lists offline and faulted devices, and reads no device of the vendor per view', async () => {
    await submit('BAT-1');
    fake.seen.length = 0;
    const first = await overview();
    await overview();
    expect(first.trouble.map((line) => [line.deviceId, line.offline, line.faulted])).toEqual([
      ['BAT-2', true, false],
      ['BAT-3', false, true],
    ]);
    // Two views, at most one site list between them and no per-device call.
    expect(fake.seen.map((request) => request.method + ' ' + request.url.split('?')[0])).toEqual(
      fake.seen.length === 0 ? [] : ['GET /eu/api/openapi/v1/sites'],
    );
  });

  it('refuses another region than the signed-in one, saying how to see it', async () => {
    const response = await bff.app.inject({
      method: 'GET',
      url: '/api/overview?region=au',
      headers: { cookie },
    });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      code: 'other_region',
      detail: expect.stringMatching(/signed in to Europe.*sign in to Australia/),
    });
  });

  it('answers 401 without a session, before reading anything', async () => {
    const response = await bff.app.inject({ method: 'GET', url: '/api/overview' });
    expect(response.statusCode).toBe(401);
    expect(fake.seen).toEqual([]);
  });
});
