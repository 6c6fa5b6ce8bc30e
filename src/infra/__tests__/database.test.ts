/**
 * The PostgreSQL handle when the server ends one of its idle pooled connections (a restart, a
 * failover, an administrator): the process keeps running, says so once, and the next query is
 * served on a new connection. PostgreSQL only (`TEST_DATABASE_URL`); PGlite has no pool.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';

describe.skipIf(!process.env.TEST_DATABASE_URL)('a PostgreSQL handle', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(() => database.drop());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('outlives the server ending its idle connections and serves the next query', async () => {
    const handle = await database.open();
    const pool = (handle.db as unknown as { $client: pg.Pool }).$client;
    await handle.db.execute('select 1');
    expect(pool.idleCount).toBeGreaterThan(0);
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);

    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const ended = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [new URL(database.databaseUrl ?? '').pathname.slice(1)],
      );
      expect(ended.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await vi.waitFor(() => expect(pool.totalCount).toBe(0), { timeout: 5000 });

    expect(warnings).toHaveBeenCalledWith(
      expect.stringContaining('PostgreSQL ended an idle pooled connection'),
      expect.objectContaining({ type: 'DatabaseWarning' }),
    );
    const answer = await pool.query<{ one: number }>('select 1 as one');
    expect(answer.rows).toEqual([{ one: 1 }]);
  });
});
