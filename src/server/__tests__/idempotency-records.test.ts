import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { recordsOfKey } from '../db/idempotency-records.ts';
import { openBffStorage } from '../db/storage.ts';
import { FleetStore } from '../fleet/fleet-store.ts';
import { LedgerStore } from '../ledger/ledger-store.ts';
import { SUBMITTED_COMMAND as command } from './support/ledger-setup.ts';

const owner = { region: 'eu' as const, clientId: 'client', operatorName: 'Ada' };
const NOW_MS = Date.parse('2026-05-01T09:00:00Z');

describe.each(DATABASE_KINDS)('the idempotency record of a key, on %s', (kind) => {
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  let ledger: LedgerStore;
  let fleet: FleetStore;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    database = await testDb.open();
    await openBffStorage({ database });
    ledger = new LedgerStore(database.db);
    fleet = new FleetStore(database.db);
  });
  afterAll(() => testDb.drop());

  const begin = (idempotencyKey: string, requestHash = 'change') =>
    ledger.begin({
      kind: 'submit',
      actor: owner,
      subject: { deviceId: 'BAT-1' },
      idempotencyKey,
      requestHash,
      nowMs: NOW_MS,
      leaseUntilMs: NOW_MS + 60_000,
    });
  const createJob = (id: string, idempotencyKey: string) =>
    fleet.create({
      id,
      owner,
      secretCiphertext: 'sealed',
      command,
      rollout: { batchSize: 10, batchesPerMinute: 6, abortPercent: 50 },
      batches: [{ deviceIds: ['BAT-1'] }],
      idempotencyKey,
      requestHash: 'job',
      nowMs: NOW_MS,
    });

  it('names the one entry two racing requests with one key made, with its fingerprint', async () => {
    const [first, second] = await Promise.all([begin('raced'), begin('raced')]);
    expect([first.created, second.created].filter(Boolean)).toHaveLength(1);
    expect(second.row.id).toBe(first.row.id);
    expect(await recordsOfKey(database.db, owner, 'raced')).toEqual({
      ledger: { holderId: String(first.row.id), requestHash: 'change', createdAtMs: NOW_MS },
    });
    expect((await ledger.findByKey(owner, 'raced'))?.id).toBe(first.row.id);
    // Another account's key of the same name is its own.
    expect(await recordsOfKey(database.db, { ...owner, clientId: 'other' }, 'raced')).toEqual({});
  });

  it("keeps a change's key and a fleet job's key of the same name apart, as each was before", async () => {
    const { row } = await begin('shared');
    await createJob('job-shared', 'shared');
    expect(await recordsOfKey(database.db, owner, 'shared')).toEqual({
      ledger: { holderId: String(row.id), requestHash: 'change', createdAtMs: NOW_MS },
      fleetJob: { holderId: 'job-shared', requestHash: 'job', createdAtMs: NOW_MS },
    });
  });

  it('makes one fleet job of two racing under one key', async () => {
    const tries = await Promise.allSettled([
      createJob('job-a', 'job-key'),
      createJob('job-b', 'job-key'),
    ]);
    expect(tries.filter((m) => m.status === 'fulfilled')).toHaveLength(1);
    const made = tries.findIndex((m) => m.status === 'fulfilled') === 0 ? 'job-a' : 'job-b';
    const { fleetJob } = await recordsOfKey(database.db, owner, 'job-key');
    expect(fleetJob?.holderId).toBe(made);
    expect(await fleet.find(made === 'job-a' ? 'job-b' : 'job-a')).toBeUndefined();
  });

  it('goes with the entry it names, so the key can be used again', async () => {
    await begin('gone');
    await database.db.execute(`delete from bff.ledger_entries`);
    expect(await recordsOfKey(database.db, owner, 'gone')).toEqual({});
    expect((await begin('gone', 'again')).created).toBe(true);
    expect((await recordsOfKey(database.db, owner, 'gone')).ledger?.requestHash).toBe('again');
  });
});
