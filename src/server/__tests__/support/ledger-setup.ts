/**
 * The setup the ledger and write path tests share: the device command they submit, a test
 * database with the BFF's schema, emptying its tables between cases, and a database migrated
 * only as far as an older release had it (for the tests of data written before a migration).
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  createTestDatabase,
  type DatabaseKind,
  type TestDatabase,
} from '#test/support/databases.ts';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { LedgerPageSchema, type LedgerEntry } from '#domain/ledger.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { BFF_SCHEMA, MIGRATIONS_FOLDER, openBffStorage } from '../../db/storage.ts';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.ts';

/** The device command these tests submit: discharge at 3 kW from 11:00 to 12:00 UTC, 1 May 2026. */
export const SUBMITTED_COMMAND = {
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-05-01T11:00:00Z',
  endTime: '2026-05-01T12:00:00Z',
};

/**
 * The read model's tables: a case whose fake vendor starts its commands afresh empties them, as a
 * new window is checked against what the read model holds.
 */
export const READ_MODEL_TABLES = ['device_commands', 'device_read_state', 'device_command_changes'];

/**
 * What the BFF keeps of each device: the per-device call budget's tables
 * (docs/decisions/007-device-call-budget.md) and the read model's. A case that reaches the
 * vendor's limit starts with no call spent, and with version 0 of its devices.
 */
export const DEVICE_TABLES = ['device_call_slots', 'device_call_busy', ...READ_MODEL_TABLES];

/** A fake vendor and a test database with the BFF's schema, as {@link startFakeAndDatabase} opens them. */
export interface FakeAndDatabase {
  fake: FakeUpstream;
  testDb: TestDatabase;
  database: DatabaseHandle;
}

/**
 * A fake vendor with the routes `program` gives it (none without), and a new test database of
 * `kind` opened with the BFF's storage on it (its schema migrated), as a BFF finds it once
 * started. Close both with {@link stopFakeAndDatabase}.
 */
export async function startFakeAndDatabase(
  kind: DatabaseKind,
  program: (fake: FakeUpstream) => void = () => undefined,
): Promise<FakeAndDatabase> {
  const fake = await startFakeUpstream();
  program(fake);
  const testDb = await createTestDatabase(kind);
  const database = await testDb.open();
  await openBffStorage({ database });
  return { fake, testDb, database };
}

/** Closes the fake vendor and drops the test database (its handle and data directory). */
export async function stopFakeAndDatabase(fake: FakeUpstream, testDb: TestDatabase): Promise<void> {
  await fake.close();
  await testDb.drop();
}

/**
 * Deletes every row of the BFF's `tables` (names without the `bff.` schema), so that a case starts
 * from none of what the one before wrote.
 */
export async function emptyBffTables(
  database: DatabaseHandle,
  tables: readonly string[],
): Promise<void> {
  for (const table of tables) await database.db.execute(`delete from bff.${table}`);
}

/**
 * A new test database of `kind`, empty of any schema, migrated with only the
 * BFF's first `count` migrations: the schema as a release before the later ones left it, for rows
 * written then. Drop it with `testDb.drop()`.
 */
export async function openDatabaseBefore(
  kind: DatabaseKind,
  count: number,
): Promise<{ testDb: TestDatabase; database: DatabaseHandle }> {
  const testDb = await createTestDatabase(kind, { content: 'empty' });
  const database = await testDb.open();
  const before = await firstMigrations(count);
  try {
    await database.migrate({ migrationsFolder: before, schema: BFF_SCHEMA });
  } finally {
    await rm(before, { recursive: true, force: true });
  }
  return { testDb, database };
}

/**
 * The ledger entries `app` answers the operator signed in with `cookie` (a cookie header), newest
 * first, parsed; `query` is the page's query string with its `?` (filters, limit, cursor). Fails
 * the test unless the answer is 200.
 */
export async function readLedger(
  app: FastifyInstance,
  cookie: string,
  query = '',
): Promise<LedgerEntry[]> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/ledger${query}`,
    headers: { cookie },
  });
  expect(response.statusCode).toBe(200);
  return LedgerPageSchema.parse(response.json()).entries;
}

/** A copy of the BFF's migrations folder holding only its first `count` migrations. */
async function firstMigrations(count: number): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'powerdeck-migrations-'));
  await cp(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalFile = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(journalFile, 'utf8')) as { entries: unknown[] };
  journal.entries = journal.entries.slice(0, count);
  await writeFile(journalFile, JSON.stringify(journal));
  return folder;
}
