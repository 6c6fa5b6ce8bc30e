import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';

/** A Drizzle database on either driver; both speak the PostgreSQL dialect. */
export type Database = PgDatabase<PgQueryResultHKT>;

/** Where the data lives: a PostgreSQL server when `databaseUrl` is set, else PGlite in `dataDir`. */
export interface DatabaseOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
}

/** An open database and how to close it. */
export interface DatabaseHandle {
  db: Database;
  driver: 'pglite' | 'postgres';
  /**
   * Applies a part's migrations (SQL files made by drizzle-kit) in its own schema; idempotent.
   * Safe to call from several BFF instances at once: on PostgreSQL they take turns under an
   * advisory lock per schema ({@link migrationLockKey}); on PGlite (one connection, one process)
   * calls on a handle take turns in memory.
   */
  migrate(options: { migrationsFolder: string; schema: string }): Promise<void>;
  close(): Promise<void>;
}

const open = new Map<string, Promise<DatabaseHandle>>();

/**
 * PGlite's own start parameters plus a smaller buffer pool. PGlite starts Postgres with its
 * default `shared_buffers` of 128 MB, and the pool lives in the WebAssembly heap, resident from
 * the start: a bare PGlite at rest holds about 310 MB RSS with it, 170 MB at 16 MB and 155 MB at
 * 8 MB (`bench/EVIDENCE.md`, "Memory at rest"). This app's tables (sessions, ledger, the
 * sandbox's state) are small: seeding the `large` fixture (64 MB on disk) took no longer at 8 MB
 * than at 128 MB, and pages outside the pool are read through the operating system's page cache.
 * `wal_buffers` follows the pool (1/32 of it). Durability is unchanged: fsync and commit
 * behaviour are PGlite's defaults.
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB'];

/** Run by `node -e` with the PGlite entry, the directory and the start parameters as arguments. */
const CREATE_PGLITE_SCRIPT = `const { PGlite } = require(process.argv[1]);
PGlite.create(process.argv[2], { startParams: JSON.parse(process.argv[3]) }).then((db) => db.close());`;

/**
 * Creates a new PGlite database in `dir` in a short-lived Node process. PGlite creates one with
 * a second Postgres instance and the initdb program, each in its own WebAssembly heap, and the
 * instance that created it keeps that memory reachable while it is open: a process that created
 * its database held 650 to 760 MB at rest, one that opened an existing database 160 to 170 MB
 * (`bench/EVIDENCE.md`, "Memory at rest"). In a child process that memory goes when it exits;
 * creating takes as long either way. Exported for the tests' copy of one empty database
 * (test/support/databases.ts), so each test database need not run initdb anew.
 *
 * @param dir an empty or missing directory; the database's files are written into it.
 * @throws when the child process fails; its error output is in the message.
 */
export async function createPgliteDatabase(dir: string): Promise<void> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const args = ['-e', CREATE_PGLITE_SCRIPT, entry, dir, JSON.stringify(PGLITE_START_PARAMS)];
  try {
    await promisify(execFile)(process.execPath, args);
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new Error(
      `creating the PGlite database in ${dir} failed: ${typeof stderr === 'string' && stderr ? stderr : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Opens the project's database (docs/architecture.md, Parts and data flow: "one PGlite database
 * serves both, each in its own schema"). PGlite is single-process, so handles are shared per
 * location inside one process: the start script runs sandbox and BFF in one process on one embedded
 * database.
 *
 * @throws when PostgreSQL is unreachable or the PGlite directory cannot be created.
 */
export function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const key = options.databaseUrl ?? path.resolve(options.dataDir);
  let handle = open.get(key);
  if (!handle) {
    handle = connect(options);
    open.set(key, handle);
    handle.catch(() => open.delete(key));
  }
  return handle;
}

async function connect(options: DatabaseOptions): Promise<DatabaseHandle> {
  const key = options.databaseUrl ?? path.resolve(options.dataDir);
  let closing: Promise<void> | undefined;
  if (options.databaseUrl) {
    // Loaded only for PostgreSQL: the embedded default (npm start) need not load the pg driver.
    const [{ default: pgDriver }, { drizzle: drizzlePg }, { migrate: migratePg }] =
      await Promise.all([
        import('pg'),
        import('drizzle-orm/node-postgres'),
        import('drizzle-orm/node-postgres/migrator'),
      ]);
    const pool = new pgDriver.Pool({ connectionString: options.databaseUrl, max: 10 });
    // An idle pooled connection that PostgreSQL ends (a server restart, a failover,
    // `pg_terminate_backend`, `drop database ... with (force)`) is reported as the pool's
    // 'error' event; with no listener Node throws it and the whole process ends. pg-pool has
    // already dropped that connection and opens a new one for the next query, so the event only
    // needs to be said (node-postgres docs, "Pool: events").
    pool.on('error', (error: Error) => {
      process.emitWarning(`PostgreSQL ended an idle pooled connection: ${error.message}`, {
        type: 'DatabaseWarning',
      });
    });
    await pool.query('select 1');
    const db = drizzlePg(pool) as unknown as Database;
    return {
      db,
      driver: 'postgres',
      migrate: ({ migrationsFolder, schema }) =>
        withAdvisoryLock(pool, migrationLockKey(schema), () =>
          withSchema(db, schema, () =>
            migratePg(drizzlePg(pool), { migrationsFolder, migrationsSchema: schema }),
          ),
        ),
      close: () => {
        open.delete(key);
        closing ??= pool.end();
        return closing;
      },
    };
  }
  const dir = path.join(options.dataDir, 'pglite');
  await mkdir(dir, { recursive: true });
  // PGlite's own test for an existing database (it runs initdb when PG_VERSION is missing).
  if (!(await stat(path.join(dir, 'PG_VERSION')).catch(() => undefined)))
    await createPgliteDatabase(dir);
  const client = await PGlite.create(dir, { startParams: PGLITE_START_PARAMS });
  const db = drizzlePglite(client) as unknown as Database;
  // PGlite has one connection, and an advisory lock is re-entrant within a connection, so it
  // would not make two migrations on this handle wait: they take turns here instead. No other
  // process can open the same PGlite directory at the same time.
  let migrations: Promise<unknown> = Promise.resolve();
  return {
    db,
    driver: 'pglite',
    migrate: ({ migrationsFolder, schema }) => {
      const run = migrations.then(() =>
        withSchema(db, schema, () =>
          migratePglite(drizzlePglite(client), { migrationsFolder, migrationsSchema: schema }),
        ),
      );
      migrations = run.catch(() => undefined);
      return run;
    },
    close: () => {
      open.delete(key);
      closing ??= client.close();
      return closing;
    },
  };
}

async function withSchema(db: Database, schema: string, run: () => Promise<void>): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  await db.execute(`create schema if not exists "${schema}"`);
  await run();
}

/**
 * The advisory lock key of a schema's migrations: the first 8 bytes of SHA-256 over a fixed
 * prefix and the schema name, as a signed 64-bit decimal (PostgreSQL's `bigint` key space). The
 * same in every instance, and apart from other schemas' keys.
 */
export function migrationLockKey(schema: string): string {
  const digest = createHash('sha256').update(`powerdeck migrations ${schema}`).digest();
  return digest.readBigInt64BE(0).toString();
}

/**
 * Runs `run` while holding `pg_advisory_lock(key)` on one pooled connection, so BFF instances
 * starting against one PostgreSQL at once migrate one after another instead of colliding on
 * `create schema` or the same migration. The lock is released (or dies with the connection)
 * whatever `run` does.
 */
async function withAdvisoryLock<T>(pool: pg.Pool, key: string, run: () => Promise<T>): Promise<T> {
  const connection = await pool.connect();
  let broken = false;
  try {
    await connection.query('select pg_advisory_lock($1::bigint)', [key]);
    try {
      return await run();
    } finally {
      await connection.query('select pg_advisory_unlock($1::bigint)', [key]).catch(() => {
        broken = true;
      });
    }
  } finally {
    // A connection whose unlock failed may still hold the lock: end it rather than reuse it.
    connection.release(broken);
  }
}
