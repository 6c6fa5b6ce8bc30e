import { fileURLToPath } from 'node:url';
import { openDatabase, type DatabaseHandle } from '#infra/database.ts';

/** The BFF's Postgres schema and its drizzle-kit migrations (`src/server/db/migrations`). */
export const BFF_SCHEMA = 'bff';
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

/** The database the BFF uses, and whether the BFF opened it (and so closes it). */
export interface BffStorage {
  handle: DatabaseHandle;
  owned: boolean;
}

/**
 * Opens the BFF's storage and applies its migrations: the given handle (shared under
 * `npm start`, never closed by the BFF), else PostgreSQL at `databaseUrl`, else PGlite in
 * `dataDir`.
 *
 * @throws when none of them is given, when the database cannot be opened or a migration fails.
 */
export async function openBffStorage(options: {
  database?: DatabaseHandle | undefined;
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
}): Promise<BffStorage> {
  let storage: BffStorage;
  if (options.database) storage = { handle: options.database, owned: false };
  else if (options.databaseUrl || options.dataDir)
    storage = {
      handle: await openDatabase({
        dataDir: options.dataDir ?? '.',
        databaseUrl: options.databaseUrl,
      }),
      owned: true,
    };
  else throw new Error('The BFF needs a database: set DATA_DIR or DATABASE_URL');
  await storage.handle.migrate({ migrationsFolder: MIGRATIONS_FOLDER, schema: BFF_SCHEMA });
  return storage;
}
