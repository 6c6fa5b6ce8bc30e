import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Db, fromPglite as FromPglite } from 'pg-boss';
import type { DatabaseHandle } from '../../infra/database.ts';

/**
 * The job queues' own schema, beside the BFF's; pg-boss creates and migrates it
 * (docs/decisions/005-fleet-job-queue.md). Fleet job steps and queued changes each have a queue
 * of their own in it.
 */
export const QUEUE_SCHEMA = 'bff_queue';

/**
 * The database as pg-boss reads it: pg-boss's own PGlite adapter on the embedded database, the
 * BFF's pool on PostgreSQL (multi-statement answers flattened as pg-boss's own driver does), so
 * no second pool is opened.
 */
export function queueDatabaseOf(handle: DatabaseHandle, fromPglite: typeof FromPglite): Db {
  const client = (handle.db as unknown as { $client: unknown }).$client;
  if (handle.driver === 'pglite') return fromPglite(client as PGlite);
  const pool = client as pg.Pool;
  return {
    executeSql: async (text, values) => {
      const result = (await pool.query(text, values)) as pg.QueryResult | pg.QueryResult[];
      return Array.isArray(result)
        ? { rows: result.flatMap((r) => r.rows) }
        : { rows: result.rows };
    },
  };
}
