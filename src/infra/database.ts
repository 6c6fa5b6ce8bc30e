import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';

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
  /** Applies a part's migrations (SQL files made by drizzle-kit) in its own schema; idempotent. */
  migrate(options: { migrationsFolder: string; schema: string }): Promise<void>;
  close(): Promise<void>;
}

const open = new Map<string, Promise<DatabaseHandle>>();

/**
 * Opens the project's database (DESIGN.md 1: "one PGlite database serves both, each in its own
 * schema"). PGlite is single-process, so handles are shared per location inside one process: the
 * start script runs sandbox and BFF in one process on one embedded database.
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
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    await pool.query('select 1');
    const db = drizzlePg(pool) as unknown as Database;
    return {
      db,
      driver: 'postgres',
      migrate: ({ migrationsFolder, schema }) =>
        withSchema(db, schema, () =>
          migratePg(drizzlePg(pool), { migrationsFolder, migrationsSchema: schema }),
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
  const client = await PGlite.create(dir);
  const db = drizzlePglite(client) as unknown as Database;
  return {
    db,
    driver: 'pglite',
    migrate: ({ migrationsFolder, schema }) =>
      withSchema(db, schema, () =>
        migratePglite(drizzlePglite(client), { migrationsFolder, migrationsSchema: schema }),
      ),
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
