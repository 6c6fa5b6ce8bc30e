import { describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestDatabase } from '#test/support/databases.ts';
import { migrationLockKey, openDatabase } from '#infra/database.ts';
import { BFF_SCHEMA, MIGRATIONS_FOLDER } from '../db/storage.ts';

/** Rows drizzle's migrator recorded in the BFF schema: one per applied migration. */
async function appliedMigrations(
  handle: Awaited<ReturnType<typeof openDatabase>>,
): Promise<number> {
  // Both drivers answer `{ rows }`; drizzle's shared type does not say so.
  const result = (await handle.db.execute(
    `select count(*)::int as n from "${BFF_SCHEMA}"."__drizzle_migrations"`,
  )) as unknown as { rows: { n: number }[] };
  return result.rows[0]?.n ?? 0;
}

describe('migrationLockKey', () => {
  it('is a fixed signed 64-bit key per schema', () => {
    expect(migrationLockKey('bff')).toBe(migrationLockKey('bff'));
    expect(migrationLockKey('bff')).not.toBe(migrationLockKey('sandbox'));
    const key = BigInt(migrationLockKey('bff'));
    expect(key >= -(2n ** 63n) && key < 2n ** 63n).toBe(true);
  });
});

describe.each(DATABASE_KINDS)('migrations started at once on %s', (kind) => {
  it('apply once, without colliding, however many instances start together', async () => {
    const testDb = await createTestDatabase(kind, { content: 'empty' });
    try {
      // Two BFF instances: on PostgreSQL two pools (the URLs differ only in a harmless
      // parameter), on PGlite the one handle a process shares per directory.
      const urls = testDb.databaseUrl
        ? ['a', 'b', 'c'].map((name) => {
            const url = new URL(testDb.databaseUrl ?? '');
            url.searchParams.set('application_name', `powerdeck-test-${name}`);
            return url.toString();
          })
        : [undefined, undefined, undefined];
      const handles = await Promise.all(
        urls.map((databaseUrl) => openDatabase({ dataDir: testDb.dataDir, databaseUrl })),
      );
      try {
        const migrate = () =>
          handles.map((handle) =>
            handle.migrate({ migrationsFolder: MIGRATIONS_FOLDER, schema: BFF_SCHEMA }),
          );
        const [first] = handles;
        if (!first) throw new Error('no handle opened');
        await Promise.all(migrate());
        const applied = await appliedMigrations(first);
        expect(applied).toBeGreaterThan(0);
        // Once more, all together: nothing left to apply, nothing applied twice.
        await Promise.all(migrate());
        expect(await appliedMigrations(first)).toBe(applied);
      } finally {
        await Promise.all(handles.map((handle) => handle.close()));
      }
    } finally {
      await testDb.drop();
    }
  });
});
