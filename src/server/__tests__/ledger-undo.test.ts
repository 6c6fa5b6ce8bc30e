import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, type TestDatabase } from '#test/support/databases.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { CSRF, buildTestBff, cookieHeader, type TestBff } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';
import {
  SUBMITTED_COMMAND as command,
  READ_MODEL_TABLES,
  emptyBffTables,
  readLedger,
  startFakeAndDatabase,
  stopFakeAndDatabase,
  openDatabaseBefore,
} from './support/ledger-setup.ts';

const record = {
  id: 'cmd_1',
  deviceId: 'BAT-1',
  ...command,
  status: 'cancelled',
  receivedAt: '2026-05-01T10:00:00Z',
  cancelledAt: '2026-05-01T10:01:00Z',
  cancelReason: 'userCancel',
};

/** Sets up the fake's routes for submissions, cancels and site lists. */
function programFake(fake: FakeUpstream): void {
  let serial = 0;
  fake.on('POST', '/device/BAT-1/commands', (_request, reply) =>
    reply
      .code(202)
      .send({ id: `cmd_${++serial}`, message: 'accepted', timestamp: '2026-05-01T10:00:00Z' }),
  );
  fake.on('PUT', '/devices/BAT-1/commands/cmd_1/cancel', () => ({
    message: 'Command cancelled',
    commandId: record.id,
    timestamp: record.cancelledAt,
  }));
  fake.on('GET', '/sites', () => ({ total: 0, page: 1, size: 500, sites: [] }));
}

/** Signs in as `operatorName` of the fake's `client` (or `client-2`); the cookie header. */
async function signInAs(
  app: FastifyInstance,
  operatorName: string,
  clientId = 'client',
): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/session',
    headers: CSRF,
    payload: {
      region: 'eu',
      clientId,
      clientSecret: clientId === 'client' ? 'secret' : 'secret-2',
      operatorName,
    },
  });
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.body}`);
  return cookieHeader(response);
}

describe.each(DATABASE_KINDS)('undo recorded in the ledger on %s', (kind) => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  let bff: TestBff;
  let ada: string;

  beforeAll(async () => {
    ({ fake, testDb, database } = await startFakeAndDatabase(kind, programFake));
  }, 90_000);
  afterAll(() => stopFakeAndDatabase(fake, testDb));
  beforeEach(async () => {
    // The read model too, as the fake's commands start afresh: a new window is checked against it.
    await emptyBffTables(database, ['ledger_entries', ...READ_MODEL_TABLES]);
    fake.seen.length = 0;
    bff = await buildTestBff(fake, { database });
    ada = await signInAs(bff.app, 'Ada');
    return () => bff.app.close();
  });

  const submit = (cookie: string, key: string, undoOf?: string, payload: object = command) =>
    bff.app.inject({
      method: 'POST',
      url: '/api/devices/BAT-1/commands',
      headers: {
        cookie,
        ...CSRF,
        'idempotency-key': key,
        ...(undoOf === undefined ? {} : { 'powerdeck-undo-of': undoOf }),
      },
      payload,
    });
  const cancel = (cookie: string, key: string, undoOf?: string | string[]) =>
    bff.app.inject({
      method: 'PUT',
      url: '/api/devices/BAT-1/commands/cmd_1/cancel',
      headers: {
        cookie,
        ...CSRF,
        'idempotency-key': key,
        ...(undoOf === undefined ? {} : { 'powerdeck-undo-of': undoOf }),
      },
    });
  const entries = (cookie = ada) => readLedger(bff.app, cookie);
  const sent = (method: string) => fake.seen.filter((s) => s.method === method).length;

  it('records a cancel that undoes a submission, and a submission that undoes that cancel', async () => {
    expect((await submit(ada, 'submit-1')).statusCode).toBe(202);
    expect((await cancel(ada, 'cancel-1', '"submit-1"')).statusCode).toBe(200);
    expect((await submit(ada, 'submit-2', 'cancel-1')).statusCode).toBe(202);

    const [resubmit, undo, original] = await entries();
    expect(original).toMatchObject({ kind: 'submit', commandId: 'cmd_1' });
    expect(original).not.toHaveProperty('undoOf');
    expect(undo).toMatchObject({ kind: 'cancel', undoOf: original?.id });
    expect(resubmit).toMatchObject({ kind: 'submit', undoOf: undo?.id });
  });

  it('refuses an unknown key, another operator’s and another client’s alike, before sending anything', async () => {
    expect((await submit(ada, 'ada-submit')).statusCode).toBe(202);
    const grace = await signInAs(bff.app, 'Grace');
    const otherClient = await signInAs(bff.app, 'Ada', 'client-2');
    expect((await submit(otherClient, 'other-submit')).statusCode).toBe(202);
    fake.seen.length = 0;

    const refusals = [
      await cancel(ada, 'undo-1', 'never-used'),
      await cancel(grace, 'undo-2', 'ada-submit'),
      await cancel(ada, 'undo-3', 'other-submit'),
      await cancel(otherClient, 'undo-4', 'ada-submit'),
    ];
    for (const refused of refusals) {
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'invalid_undo_of' });
      expect(refused.json().detail).toBe(refusals[0]?.json().detail);
      expect(refused.json().detail).not.toMatch(/\bBFF\b|\bspec \d|\d{4}-\d\d-\d\dT/);
    }
    // Nothing was sent: no submission or cancel. The read model may read a device's history in
    // the background after the submissions above (under load that read fell in here once); a
    // read sends nothing.
    expect(fake.seen.filter((request) => request.method !== 'GET')).toEqual([]);
    expect((await entries()).map((e) => e.kind)).toEqual(['submit']);
  });

  it.each([
    ['a space', 'submit 1'],
    ['an empty quoted value', '""'],
    ['a value of 256 characters', 'k'.repeat(256)],
    ['a repeated header', ['submit-1', 'submit-1']],
  ])('refuses a malformed header (%s) with 400 invalid_undo_of', async (_what, value) => {
    expect((await submit(ada, 'submit-1')).statusCode).toBe(202);
    fake.seen.length = 0;
    const refused = await cancel(ada, 'undo-1', value);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'invalid_undo_of' });
    expect(fake.seen).toHaveLength(0);
  });

  it('counts the header in the request fingerprint: same key and header replays, another is 422', async () => {
    expect((await submit(ada, 'submit-1')).statusCode).toBe(202);
    // A second window, after the first: the device holds both.
    const later = { ...command, startTime: command.endTime, endTime: '2026-05-01T13:00:00Z' };
    expect((await submit(ada, 'submit-2', undefined, later)).statusCode).toBe(202);
    expect((await cancel(ada, 'cancel-1', 'submit-1')).statusCode).toBe(200);
    expect(sent('PUT')).toBe(1);

    const replayed = await cancel(ada, 'cancel-1', 'submit-1');
    expect(replayed.statusCode).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    for (const other of [await cancel(ada, 'cancel-1', 'submit-2'), await cancel(ada, 'cancel-1')])
      expect(other.json()).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    // A key first used without the header does not gain one on a retry.
    expect((await submit(ada, 'submit-1', 'submit-2')).json()).toMatchObject({
      code: 'idempotency_key_reused',
    });
    expect(sent('PUT')).toBe(1);
  });
});

describe.each(DATABASE_KINDS)('entries written before undo was recorded, on %s', (kind) => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    programFake(fake);
    // The schema as it was before the undo_of column, and an entry written through it.
    ({ testDb, database } = await openDatabaseBefore(kind, 4));
    await database.db.execute(`
      insert into bff.ledger_entries (kind, state, region, client_id, operator_name,
        idempotency_key, device_id, created_at, completed_at, response_status)
      values ('submit', 'succeeded', 'eu', 'client', 'Ada', 'old-submit', 'BAT-1',
        '2026-05-01T09:00:00Z', '2026-05-01T09:00:01Z', 202)`);
  }, 90_000);
  afterAll(() => stopFakeAndDatabase(fake, testDb));

  it('are listed without undoOf after the migration and can be undone', async () => {
    const bff = await buildTestBff(fake, { database });
    try {
      const cookie = await signInAs(bff.app, 'Ada');
      const undo = await bff.app.inject({
        method: 'PUT',
        url: '/api/devices/BAT-1/commands/cmd_1/cancel',
        headers: { cookie, ...CSRF, 'idempotency-key': 'undo', 'powerdeck-undo-of': 'old-submit' },
      });
      expect(undo.statusCode).toBe(200);
      const listed = await bff.app.inject({
        method: 'GET',
        url: '/api/ledger',
        headers: { cookie },
      });
      const [cancelEntry, oldEntry] = LedgerPageSchema.parse(listed.json()).entries;
      expect(oldEntry).toMatchObject({ kind: 'submit', state: 'succeeded' });
      expect(oldEntry).not.toHaveProperty('undoOf');
      expect(cancelEntry).toMatchObject({ kind: 'cancel', undoOf: oldEntry?.id });
    } finally {
      await bff.app.close();
    }
  });
});
