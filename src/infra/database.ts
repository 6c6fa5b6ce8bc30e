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

export type Database = PgDatabase<PgQueryResultHKT>;

/** Where the data lives: a PostgreSQL server when `databaseUrl` is set, else PGlite in `dataDir`. */
export interface DatabaseOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
}

export interface DatabaseHandle {
  db: Database;
  driver: 'pglite' | 'postgres';
  /** Applies a part's drizzle-kit migrations in its own schema; idempotent, safe across BFFs. */
  migrate(options: { migrationsFolder: string; schema: string }): Promise<void>;
  close(): Promise<void>;
}

const open = new Map<string, Promise<DatabaseHandle>>();

// An 8 MB pool, not 128: ~155 MB at rest instead of ~310 (bench/EVIDENCE.md, "Memory at rest").
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB'];

const CREATE_PGLITE_SCRIPT = `const { PGlite } = require(process.argv[1]);
PGlite.create(process.argv[2], { startParams: JSON.parse(process.argv[3]) }).then((db) => db.close());`;

/** Creates a PGlite database in `dir` in a child process, so initdb's ~600 MB go at its exit. */
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

/** One shared handle per location (PGlite is single-process). @throws when unreachable. */
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
    const [{ default: pgDriver }, { drizzle: drizzlePg }, { migrate: migratePg }] =
      await Promise.all([
        import('pg'),
        import('drizzle-orm/node-postgres'),
        import('drizzle-orm/node-postgres/migrator'),
      ]);
    const pool = new pgDriver.Pool({ connectionString: options.databaseUrl, max: 10 });
    // Without a listener, an idle connection the server ends crashes the process.
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
  if (!(await stat(path.join(dir, 'PG_VERSION')).catch(() => undefined)))
    await createPgliteDatabase(dir);
  const client = await PGlite.create(dir, { startParams: PGLITE_START_PARAMS });
  const db = drizzlePglite(client) as unknown as Database;
  // An advisory lock is re-entrant on PGlite's one connection, so migrations queue here instead.
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

/** Advisory lock key of a schema's migrations: a stable signed 64-bit hash of its name. */
export function migrationLockKey(schema: string): string {
  const digest = createHash('sha256').update(`powerdeck migrations ${schema}`).digest();
  return digest.readBigInt64BE(0).toString();
}

/** Runs `run` under `pg_advisory_lock(key)` so instances migrate one after another. */
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
