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
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPgliteDatabase, openDatabase, type DatabaseHandle } from '#infra/database.ts';
import {
  MIGRATIONS_FOLDER as SANDBOX_MIGRATIONS_FOLDER,
  SANDBOX_SCHEMA,
} from '#sandbox/db/drizzle-persistence.ts';
import { JobQueueHost } from '#server/db/job-queue.ts';
import { BFF_SCHEMA, MIGRATIONS_FOLDER as BFF_MIGRATIONS_FOLDER } from '#server/db/storage.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/** `pglite`, plus `postgres` when `TEST_DATABASE_URL` is set. */
export const DATABASE_KINDS: DatabaseKind[] = process.env.TEST_DATABASE_URL
  ? ['pglite', 'postgres']
  : ['pglite'];

/**
 * What a new test database holds: `migrated` (default), the BFF's and the sandbox's schemas at
 * their latest migration and the job queues' schema, as a BFF and a sandbox leave it once started
 * on it; `empty`, no schema at all, for the tests of the migrations themselves (data upgrades,
 * the migration lock).
 */
export type TestDatabaseContent = 'migrated' | 'empty';

/** A fresh database of one kind, with a data directory for everything else. */
export interface TestDatabase {
  kind: DatabaseKind;
  /** A temporary directory (PGlite lives under it for `pglite`). */
  dataDir: string;
  /** Set for `postgres`: the URL of this test's own database. */
  databaseUrl?: string;
  /** Opens (or returns the already open) handle on this database. */
  open(): Promise<DatabaseHandle>;
  /**
   * The database as a second BFF instance holds it, for tests of what instances share: on
   * PostgreSQL a connection of its own (named `second-instance`, closed by the caller); on
   * PGlite, which one process opens alone, the handle of `open()`.
   */
  openSecondInstance(): Promise<DatabaseHandle>;
  /** Closes the handle and deletes the database and the data directory. */
  drop(): Promise<void>;
}

/**
 * A new database of `kind` with a data directory of its own. On PGlite it is a copy of a template
 * (see {@link TestDatabaseContent}); on PostgreSQL it is always empty, and the BFF and the sandbox
 * migrate it when they open it, so a test reads the same schema either way.
 */
export async function createTestDatabase(
  kind: DatabaseKind,
  options: { content?: TestDatabaseContent } = {},
): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `powerdeck-${kind}-`));
  let databaseUrl: string | undefined;
  let name: string | undefined;
  // A copy of a template in about a tenth of initdb's 3-4 s on a loaded 2-core machine. The
  // migrated one also spares the 1.5-3 s of applying every migration to each test database: the
  // opener's own migration then finds them applied, as on a restart.
  if (kind === 'pglite') {
    const template =
      options.content === 'empty' ? await emptyPgliteTemplate() : await migratedPgliteTemplate();
    await copyTree(template, path.join(dataDir, 'pglite'));
  }
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
    openSecondInstance: () =>
      databaseUrl === undefined
        ? (handle ??= openDatabase({ dataDir, databaseUrl }))
        : openDatabase({ dataDir, databaseUrl: `${databaseUrl}?application_name=second-instance` }),
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
 */
function emptyPgliteTemplate(): Promise<string> {
  return (emptyTemplate ??= pgliteVersion().then((version) =>
    pgliteTemplate(`empty-${version}`, createPgliteDatabase),
  ));
}
let emptyTemplate: Promise<string> | undefined;

/**
 * The directory of a PGlite database as a BFF and a sandbox leave it once started on it: their
 * migrations applied and the job queues' schema installed (pg-boss's install took 1-3.5 s of each
 * stack). Made from the empty template once per machine, PGlite and pg-boss version and set of
 * migrations (their files' hash is in the name, so a new or changed migration makes a new
 * template).
 */
function migratedPgliteTemplate(): Promise<string> {
  return (migratedTemplate ??= (async () => {
    const versions = `${await pgliteVersion()}-${await packageVersion('pg-boss')}`;
    const name = `migrated-${versions}-${await migrationsHash()}`;
    const empty = await emptyPgliteTemplate();
    return pgliteTemplate(name, async (dir) => {
      await copyTree(empty, dir);
      // openDatabase keys its handles by data directory, and puts PGlite under `pglite/` of it.
      const handle = await openDatabase({ dataDir: path.dirname(dir) });
      try {
        await handle.migrate({ migrationsFolder: BFF_MIGRATIONS_FOLDER, schema: BFF_SCHEMA });
        await handle.migrate({
          migrationsFolder: SANDBOX_MIGRATIONS_FOLDER,
          schema: SANDBOX_SCHEMA,
        });
        // Started and stopped as a BFF's queues start and stop it, which installs its schema.
        const queues = new JobQueueHost(handle, {
          error: (details, message) => {
            throw new Error(`${message}: ${JSON.stringify(details)}`);
          },
        });
        await queues.withStarted(async () => undefined);
        await queues.stop();
      } finally {
        await handle.close();
      }
    });
  })());
}
let migratedTemplate: Promise<string> | undefined;

/**
 * A template directory `powerdeck-pglite-<name>` under the temporary directory, made by `build`
 * when missing. Test files in several workers may find it missing at once: each builds its own in
 * a directory of its own and renames it into place, and a rename that finds the directory already
 * there (another worker won) drops its own copy. A template is never opened once in place, only
 * copied.
 */
async function pgliteTemplate(
  name: string,
  build: (dir: string) => Promise<void>,
): Promise<string> {
  const dir = path.join(os.tmpdir(), `powerdeck-pglite-${name}`);
  const ready = () =>
    stat(path.join(dir, 'PG_VERSION')).then(
      () => true,
      () => false,
    );
  if (await ready()) return dir;
  const building = await mkdtemp(`${dir}-building-`);
  const built = path.join(building, 'pglite');
  try {
    await build(built);
    await rename(built, dir);
  } catch (error) {
    if (!(await ready())) throw error;
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return dir;
}

/**
 * Copies the directory tree `from` to `to` (made), every file at once: a PGlite database is
 * about 1,100 files, 40 MB, which `fs.cp` copied one after another in 1.5-4.8 s on a loaded
 * 2-core machine, this in 0.6-2 s. A copy-on-write clone where the file system has one.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  const relative = (entry: { parentPath: string; name: string }) =>
    path.relative(from, path.join(entry.parentPath, entry.name));
  await mkdir(to, { recursive: true });
  for (const entry of entries)
    if (entry.isDirectory()) await mkdir(path.join(to, relative(entry)), { recursive: true });
  await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) =>
        copyFile(
          path.join(from, relative(entry)),
          path.join(to, relative(entry)),
          constants.COPYFILE_FICLONE,
        ),
      ),
  );
}

/** A hash of every file of the BFF's and the sandbox's migrations, names and contents. */
async function migrationsHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const folder of [BFF_MIGRATIONS_FOLDER, SANDBOX_MIGRATIONS_FOLDER]) {
    const files = (await readdir(folder, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name))
      .sort();
    for (const file of files)
      hash
        .update(path.relative(folder, file))
        .update('\0')
        .update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The installed PGlite's version: a database's files are read by the version that wrote them. */
function pgliteVersion(): Promise<string> {
  return packageVersion('@electric-sql/pglite');
}

/** The installed version of package `name` (its package.json, above its resolved entry). */
async function packageVersion(name: string): Promise<string> {
  // Packages need not export their package.json; it sits above the resolved entry.
  let dir = path.dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    const manifest = await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => undefined);
    if (manifest) {
      const found = JSON.parse(manifest) as { name?: string; version?: string };
      if (found.name === name && found.version) return found.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`the package.json of ${name} was not found`);
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
