import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DATABASE_KINDS, type TestDatabase } from '#test/support/databases.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { recordsOfKey } from '../db/idempotency-records.ts';
import { BFF_SCHEMA, MIGRATIONS_FOLDER } from '../db/storage.ts';
import { LedgerConnectionAudit } from '../ledger/connection-audit.ts';
import { requestFingerprint } from '../ledger/idempotency.ts';
import { LedgerStore } from '../ledger/ledger-store.ts';
import { toLedgerEntry } from '../ledger/ledger-rows.ts';
import { CSRF, buildTestBff, signIn } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';
import {
  SUBMITTED_COMMAND as command,
  openDatabaseBefore,
  stopFakeAndDatabase,
} from './support/ledger-setup.ts';

const accepted = { id: 'cmd_old', message: 'accepted', timestamp: '2026-05-01T09:00:00Z' };

/** The same submission sent again under `old-key` is answered from its entry, nothing sent. */
async function expectOldKeyReplayed(
  bff: { app: FastifyInstance },
  cookie: string,
  fake: FakeUpstream,
): Promise<void> {
  const retried = await bff.app.inject({
    method: 'POST',
    url: '/api/devices/BAT-1/commands',
    headers: { cookie, ...CSRF, 'idempotency-key': '"old-key"' },
    payload: command,
  });
  expect(retried.statusCode).toBe(202);
  expect(retried.json()).toEqual(accepted);
  expect(retried.headers['idempotent-replayed']).toBe('true');
  expect(fake.seen).toHaveLength(0);
}

/** A submission the vendor accepted, under `old-key`, as an older schema stored it. */
const insertSucceededSubmit = (database: DatabaseHandle) =>
  database.db.execute(`
    insert into bff.ledger_entries (kind, state, region, client_id, idempotency_key,
      request_hash, device_id, command_id, window_start, window_end, request,
      response_status, response, outcome, created_at, completed_at)
    values ('submit', 'succeeded', 'eu', 'client', 'old-key',
      '${requestFingerprint('submit', '/device/BAT-1/commands', command)}', 'BAT-1', 'cmd_old',
      '${command.startTime}', '${command.endTime}', '${JSON.stringify(command)}',
      202, '${JSON.stringify({ status: 202, contentType: 'application/json', body: accepted })}',
      '{"status":202}', '2026-05-01T09:00:00Z', '2026-05-01T09:00:01Z')`);

describe.each(DATABASE_KINDS)('ledger rows written before the enum columns, on %s', (kind) => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    // The schema as it was with text columns (init and lease), and a row written then.
    ({ testDb, database } = await openDatabaseBefore(kind, 2));
    await insertSucceededSubmit(database);
  });
  afterAll(() => stopFakeAndDatabase(fake, testDb));

  it('are listed and replayed by their Idempotency-Key after the migration', async () => {
    const bff = await buildTestBff(fake, { database });
    try {
      const cookie = await signIn(bff.app);
      const listed = await bff.app.inject({
        method: 'GET',
        url: '/api/ledger',
        headers: { cookie },
      });
      expect(listed.statusCode).toBe(200);
      expect(LedgerPageSchema.parse(listed.json()).entries).toMatchObject([
        { kind: 'submit', state: 'succeeded', commandId: 'cmd_old', deviceId: 'BAT-1' },
      ]);
      await expectOldKeyReplayed(bff, cookie, fake);
    } finally {
      await bff.app.close();
    }
  });
});

describe.each(DATABASE_KINDS)('keys kept before their one idempotency record, on %s', (kind) => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  const hash = requestFingerprint('submit', '/device/BAT-1/commands', command);

  beforeAll(async () => {
    fake = await startFakeUpstream();
    // The schema before `idempotency_records` (migrations 0000 to 0013): each store kept its keys.
    ({ testDb, database } = await openDatabaseBefore(kind, 14));
    await insertSucceededSubmit(database);
    await database.db.execute(`
      insert into bff.queued_changes (id, region, client_id, kind, change, steps, state,
        idempotency_key, request_hash, created_at, updated_at)
      values ('change-old', 'eu', 'client', 'single', '{}', '[]', 'queued', 'old-key',
        '${hash}', '2026-05-01T08:59:00Z', '2026-05-01T08:59:00Z')`);
    await database.db.execute(`
      insert into bff.fleet_jobs (id, region, client_id, command, rollout, state,
        idempotency_key, request_hash, created_at, updated_at)
      values ('job-old', 'eu', 'client', '${JSON.stringify(command)}', '{}', 'running',
        'old-key', 'job-hash', '2026-05-01T09:01:00Z', '2026-05-01T09:01:00Z')`);
  });
  afterAll(() => stopFakeAndDatabase(fake, testDb));

  it('are each answered by the record the migration made, and replayed', async () => {
    const bff = await buildTestBff(fake, { database });
    try {
      const held = await recordsOfKey(database.db, { region: 'eu', clientId: 'client' }, 'old-key');
      expect(held).toMatchObject({
        ledger: { requestHash: hash, createdAtMs: Date.parse('2026-05-01T09:00:00Z') },
        queue: { holderId: 'change-old', requestHash: hash },
        fleetJob: { holderId: 'job-old', requestHash: 'job-hash' },
      });
      const cookie = await signIn(bff.app);
      await expectOldKeyReplayed(bff, cookie, fake);
    } finally {
      await bff.app.close();
    }
  });
});

describe.each(DATABASE_KINDS)(
  'a ledger from before connection changes were recorded, on %s',
  (kind) => {
    let testDb: TestDatabase;
    let database: DatabaseHandle;

    beforeAll(async () => {
      // The schema as it was before the `connection` kind (migrations 0000 to 0007), with a row.
      ({ testDb, database } = await openDatabaseBefore(kind, 8));
      await database.db.execute(`
      insert into bff.ledger_entries (kind, state, region, client_id, site_id, request_hash,
        operator_issuer, operator_subject, operator_name, created_at, completed_at)
      values ('bind', 'succeeded', 'eu', 'client', 'PLANT-1', 'hash',
        'https://id.example.com', 'admin', 'Ada Admin', '2026-05-01T09:00:00Z',
        '2026-05-01T09:00:01Z')`);
      await database.migrate({ migrationsFolder: MIGRATIONS_FOLDER, schema: BFF_SCHEMA });
    });
    afterAll(() => testDb.drop());

    it('keeps its entries and records connection changes beside them', async () => {
      const store = new LedgerStore(database.db);
      const audit = new LedgerConnectionAudit(
        store,
        () => Date.parse('2026-05-02T09:00:00Z'),
        1000,
      );
      const admin = {
        issuer: 'https://id.example.com',
        subject: 'admin',
        name: 'Ada Admin',
        role: 'admin' as const,
      };
      const entry = await audit.begin({
        region: 'eu',
        operator: admin,
        change: { change: 'register', clientId: 'client' },
      });
      await entry.saved(true);
      const rows = await store.list({ region: 'eu', operator: admin }, {});
      expect(rows.map((row) => toLedgerEntry(row, Date.now()))).toMatchObject([
        { kind: 'connection', state: 'succeeded', outcome: { status: 200, checked: true } },
        { kind: 'bind', state: 'succeeded', siteId: 'PLANT-1' },
      ]);
    });
  },
);
