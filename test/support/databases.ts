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
import { cp, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  createPgliteDatabase,
  openDatabase,
  type DatabaseHandle,
} from '../../src/infra/database.ts';

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
  // A copy of one empty database (no schema, no migration), the same as the database openDatabase
  // would create here, in about a tenth of initdb's 3-4 s on a loaded 2-core machine.
  if (kind === 'pglite')
    await cp(await emptyPgliteTemplate(), path.join(dataDir, 'pglite'), { recursive: true });
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

/**
 * The directory of an empty PGlite database that test databases are copied from, created once
 * per machine and PGlite version: initdb took 3-4 s of each of the ~50 PGlite databases of a run.
 * Test files in several workers may find it missing at once: each builds its own in a directory
 * of its own and renames it into place, and a rename that finds the directory already there
 * (another worker won) drops its own copy. The template is never opened, only copied.
 */
async function emptyPgliteTemplate(): Promise<string> {
  const dir = path.join(os.tmpdir(), `powerdeck-pglite-empty-${await pgliteVersion()}`);
  const ready = () =>
    stat(path.join(dir, 'PG_VERSION')).then(
      () => true,
      () => false,
    );
  if (await ready()) return dir;
  const building = await mkdtemp(`${dir}-building-`);
  try {
    await createPgliteDatabase(building);
    await rename(building, dir);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    if (!(await ready())) throw error;
  }
  return dir;
}

/** The installed PGlite's version: a database's files are read by the version that wrote them. */
async function pgliteVersion(): Promise<string> {
  // The package does not export its package.json; it sits above the resolved entry.
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const manifest = await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => undefined);
    if (manifest) {
      const { name, version } = JSON.parse(manifest) as { name?: string; version?: string };
      if (name === '@electric-sql/pglite' && version) return version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('the package.json of @electric-sql/pglite was not found');
    dir = parent;
  }
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
