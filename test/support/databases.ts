/**
 * The databases a storage suite runs on, so both supported stores pass the same suites: always
 * embedded PGlite; PostgreSQL too when `TEST_DATABASE_URL` names a server
 * whose role may create databases (`.ci/run` sets it up). Each use gets a database of its own,
 * so test files run in parallel without sharing rows.
 *
 * ```ts
 * describe.each(DATABASE_KINDS)('sessions on %s', (kind) => {
 *   let db: TestDatabase;
 *   beforeAll(async () => { db = await createTestDatabase(kind); });
 *   afterAll(() => db.drop());
 * });
 * ```
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/infra/database.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/** `pglite`, plus `postgres` when `TEST_DATABASE_URL` is set. */
export const DATABASE_KINDS: DatabaseKind[] = process.env.TEST_DATABASE_URL
  ? ['pglite', 'postgres']
  : ['pglite'];

/** A fresh, empty database of one kind, with a data directory for everything else. */
export interface TestDatabase {
  kind: DatabaseKind;
  /** A temporary directory (PGlite lives under it for `pglite`). */
  dataDir: string;
  /** Set for `postgres`: the URL of this test's own database. */
  databaseUrl?: string;
  /** Opens (or returns the already open) handle on this database. */
  open(): Promise<DatabaseHandle>;
  /** Closes the handle and deletes the database and the data directory. */
  drop(): Promise<void>;
}

export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `powerdeck-${kind}-`));
  let databaseUrl: string | undefined;
  let name: string | undefined;
  if (kind === 'postgres') {
    const serverUrl = process.env.TEST_DATABASE_URL;
    if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
    name = `powerdeck_t_${randomBytes(6).toString('hex')}`;
    await admin(serverUrl, `create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  let handle: Promise<DatabaseHandle> | undefined;
  return {
    kind,
    dataDir,
    ...(databaseUrl ? { databaseUrl } : {}),
    open: () => (handle ??= openDatabase({ dataDir, databaseUrl })),
    drop: async () => {
      if (handle) await (await handle).close();
      if (name && process.env.TEST_DATABASE_URL)
        await dropDatabase(process.env.TEST_DATABASE_URL, name);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Tries of a drop that met a backend it may not end, and the wait between them, ms. */
const DROP_TRIES = 5;
const DROP_RETRY_MS = 500;

/**
 * Drops a test database, its connections ended. An autovacuum worker on it is a backend the
 * test role may not end (42501, `pg_signal_backend`): it finishes within moments, so the drop is
 * tried again a few times.
 */
async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await admin(serverUrl, `drop database if exists ${name} with (force)`);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== '42501' || attempt >= DROP_TRIES) throw error;
      await sleep(DROP_RETRY_MS);
    }
  }
}

async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
