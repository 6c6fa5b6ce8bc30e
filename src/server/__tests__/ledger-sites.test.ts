import type { FastifyReply } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, type TestDatabase } from '#test/support/databases.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { CSRF, buildTestBff, signIn, type TestBff } from './support/bff.ts';
import { vendorPage, vendorSite, type FakeUpstream } from './support/fake-upstream.ts';
import {
  READ_MODEL_TABLES,
  emptyBffTables,
  readLedger,
  startFakeAndDatabase,
  stopFakeAndDatabase,
} from './support/ledger-setup.ts';

const window = { startTime: '2026-05-01T11:00:00Z', endTime: '2026-05-01T12:00:00Z' };
const command = { powerControl: { targetBatteryPowerW: -3000 }, ...window };
/** PLANT-1 and PLANT-2 in Germany (Berlin's zone), PLANT-3 in Western Australia (Perth's). */
const SITES = vendorPage('sites', [
  vendorSite('PLANT-1', ['BAT-1', 'BAT-2']),
  vendorSite('PLANT-2', ['BAT-3']),
  vendorSite('PLANT-3', ['BAT-4'], { countryCode: 'AU', timezone: 'UTC+8:00' }),
]);

/** How long a submission waits for the site list in these cases (the product waits 1 s). */
const SITE_LOOKUP_WAIT_MS = 10_000;

describe.each(DATABASE_KINDS)('the site and time zone a ledger entry records, on %s', (kind) => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  let bff: TestBff;
  let cookie: string;
  let logLines: string[];
  /** How the fake answers `GET /sites`: the list, an unreadable body, or the list after a delay. */
  let sitesMode: 'list' | 'unreadable' | 'slow' = 'list';
  let releaseSites: () => void = () => undefined;
  let serial = 0;

  beforeAll(async () => {
    ({ fake, testDb, database } = await startFakeAndDatabase(kind));
    fake.on('GET', '/sites', async (_request, reply: FastifyReply) => {
      if (sitesMode === 'unreadable') return reply.type('application/json').send('{"sites": [');
      // A slow site list answers only once the case lets it go.
      if (sitesMode === 'slow') await new Promise<void>((resolve) => (releaseSites = resolve));
      return SITES;
    });
    fake.on('POST', '/sites', () => ({ message: 'onboarding success', siteId: 'PLANT-4' }));
    fake.on('GET', '/sites/PLANT-4', () => vendorSite('PLANT-4', ['BAT-5']));
    for (const deviceId of ['BAT-1', 'BAT-2', 'BAT-3', 'BAT-4'])
      fake.on('POST', `/device/${deviceId}/commands`, (_request, reply: FastifyReply) =>
        reply.code(202).send({ id: `cmd_${++serial}`, message: 'ok', timestamp: window.startTime }),
      );
    fake.on('PUT', '/devices/BAT-4/commands/cmd_9/cancel', () => ({
      message: 'Command cancelled',
      commandId: 'cmd_9',
      timestamp: window.startTime,
    }));
    fake.on('POST', '/devices/commands', (_request, reply: FastifyReply) =>
      reply
        .code(202)
        .send({ batchCommandId: 'batch_1', message: 'ok', timestamp: window.startTime }),
    );
    for (const [batchCommandId, deviceIds] of [
      ['batch_1', ['BAT-1', 'BAT-3']],
      ['batch_elsewhere', ['BAT-4']],
    ] as const)
      fake.on('PUT', `/devices/commands/${batchCommandId}/cancel`, () => ({
        message: 'Batch command cancelled',
        batchCommandId,
        results: deviceIds.map((deviceId) => ({
          deviceId,
          commandId: `cmd_${deviceId}`,
          status: 'cancelled',
          message: 'cancelled',
        })),
      }));
  });
  afterAll(() => stopFakeAndDatabase(fake, testDb));
  beforeEach(async () => {
    // The read model too, as the fake's commands start afresh: a new window is checked against it.
    await emptyBffTables(database, ['ledger_entries', ...READ_MODEL_TABLES]);
    sitesMode = 'list';
    fake.seen.length = 0;
    logLines = [];
    bff = await start(SITE_LOOKUP_WAIT_MS);
    return async () => {
      releaseSites();
      await bff.app.close();
    };
  });

  /**
   * A BFF on the shared database, signed in. The lookup waits for the site list far longer than
   * the fake takes to answer, however loaded the machine, except where a case tests the wait.
   */
  const start = async (siteLookupWaitMs: number) => {
    const started = await buildTestBff(fake, {
      database,
      logger: { level: 'warn', stream: { write: (line: string) => void logLines.push(line) } },
      testing: { siteLookupWaitMs },
    });
    cookie = await signIn(started.app);
    return started;
  };

  const call = (method: 'POST' | 'PUT', url: string, payload?: object) =>
    bff.app.inject({
      method,
      url,
      headers: { cookie, ...CSRF },
      ...(payload ? { payload } : {}),
    });
  const entries = (query = '') => readLedger(bff.app, cookie, query);
  const siteReads = () =>
    fake.seen.filter((s) => s.method === 'GET' && s.url.startsWith('/sites?')).length;

  it('records the site and zone of a submission and a cancel', async () => {
    expect((await call('POST', '/api/devices/BAT-2/commands', command)).statusCode).toBe(202);
    expect((await call('PUT', '/api/devices/BAT-4/commands/cmd_9/cancel')).statusCode).toBe(200);
    expect(await entries()).toMatchObject([
      { kind: 'cancel', deviceId: 'BAT-4', siteId: 'PLANT-3', timeZone: 'Australia/Perth' },
      { kind: 'submit', deviceId: 'BAT-2', siteId: 'PLANT-1', timeZone: 'Europe/Berlin' },
    ]);
    // One site list served both: it is kept for a while.
    expect(siteReads()).toBe(1);
  });

  it('records the zone of a batch over two sites of one zone, and no site', async () => {
    const batch = { devices: ['BAT-1', 'BAT-3'], command };
    expect((await call('POST', '/api/batches', batch)).statusCode).toBe(202);
    const [entry] = await entries();
    expect(entry).toMatchObject({ kind: 'batch', timeZone: 'Europe/Berlin' });
    expect(entry?.siteId).toBeUndefined();
    const mixed = { devices: ['BAT-2', 'BAT-4'], command };
    await database.db.execute('delete from bff.ledger_entries');
    expect((await call('POST', '/api/batches', mixed)).statusCode).toBe(202);
    const [other] = await entries();
    expect(other?.siteId).toBeUndefined();
    expect(other?.timeZone).toBeUndefined();
  });

  it("records a batch cancel with its batch's zone, or with the zone its answer's devices tell", async () => {
    const batch = { devices: ['BAT-1', 'BAT-3'], command };
    expect((await call('POST', '/api/batches', batch)).statusCode).toBe(202);
    expect((await call('PUT', '/api/batches/batch_1/cancel')).statusCode).toBe(200);
    expect((await call('PUT', '/api/batches/batch_elsewhere/cancel')).statusCode).toBe(200);
    expect(await entries('?kind=batchCancel')).toMatchObject([
      { batchCommandId: 'batch_elsewhere', siteId: 'PLANT-3', timeZone: 'Australia/Perth' },
      { batchCommandId: 'batch_1', timeZone: 'Europe/Berlin' },
    ]);
  });

  it('never refuses a submission for an unreadable site list: recorded without, and logged', async () => {
    sitesMode = 'unreadable';
    const response = await call('POST', '/api/devices/BAT-1/commands', command);
    expect(response.statusCode).toBe(202);
    const [entry] = await entries();
    expect(entry).toMatchObject({ kind: 'submit', state: 'succeeded', deviceId: 'BAT-1' });
    expect(entry?.siteId).toBeUndefined();
    expect(entry?.timeZone).toBeUndefined();
    expect(logLines.some((line) => line.includes('without its site and time zone'))).toBe(true);
  });

  it('waits for a slow site list only as long as the lookup wait', async () => {
    await bff.app.close();
    bff = await start(300);
    sitesMode = 'slow';
    const response = await call('POST', '/api/devices/BAT-1/commands', command);
    // Answered while the site list, asked for, has not answered: the wait gave up on it.
    expect(response.statusCode).toBe(202);
    expect(siteReads()).toBeGreaterThan(0);
    expect((await entries())[0]?.timeZone).toBeUndefined();
  });

  it('asks for the site list again after a bind through the BFF', async () => {
    await call('POST', '/api/devices/BAT-1/commands', command);
    expect((await call('POST', '/api/sites', { siteId: 'PLANT-4' })).statusCode).toBe(201);
    await call('POST', '/api/devices/BAT-3/commands', command);
    // The first submission's, the bind's own (is the site listed already?), and the next one's.
    expect(siteReads()).toBe(3);
    expect((await entries('?kind=submit'))[0]).toMatchObject({ siteId: 'PLANT-2' });
  });
});
