import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#infra/database.ts';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { openBffStorage } from '../db/storage.ts';
import { sessions } from '../db/schema.ts';
import { DatabaseSessionStore, hashSessionId } from '../session/database-session-store.ts';
import { SecretBox } from '../session/secret-box.ts';
import { SESSION_ABSOLUTE_TIMEOUT_MS, SESSION_IDLE_TIMEOUT_MS } from '../session/session-store.ts';

const T0 = Date.parse('2026-05-01T10:00:00Z');
const data = { region: 'eu', clientId: 'demo-eu', clientSecret: 'demo-eu-secret' } as const;

describe.each(DATABASE_KINDS)('database sessions on %s', (kind) => {
  let testDb: TestDatabase;
  let db: Database;
  const key = randomBytes(32);
  let store: DatabaseSessionStore;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    const handle = await testDb.open();
    await openBffStorage({ database: handle });
    // Applying the migrations twice is harmless (start-up of a second instance).
    await openBffStorage({ database: handle });
    db = handle.db;
    store = new DatabaseSessionStore(db, new SecretBox(key));
  });
  afterAll(() => testDb.drop());

  it('stores a hash of the ID and the secret sealed, and finds the session again', async () => {
    const created = await store.create(data, T0);
    expect(created.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await db.select().from(sessions);
    const row = rows.find((r) => r.idHash === hashSessionId(created.id));
    expect(row).toBeDefined();
    expect(JSON.stringify(rows)).not.toContain(created.id);
    expect(JSON.stringify(rows)).not.toContain('demo-eu-secret');
    expect(await store.find(created.id, T0 + 1000)).toMatchObject({ ...data, id: created.id });
  });

  it('is shared by another instance with the same key, and useless under another key', async () => {
    const created = await store.create(data, T0);
    const sibling = new DatabaseSessionStore(db, new SecretBox(key));
    expect((await sibling.find(created.id, T0))?.clientSecret).toBe('demo-eu-secret');
    const stranger = new DatabaseSessionStore(db, new SecretBox(randomBytes(32)));
    expect(await stranger.find(created.id, T0)).toBeUndefined();
    expect(await store.find(created.id, T0)).toBeUndefined();
  });

  it('forgets a destroyed session', async () => {
    const created = await store.create(data, T0);
    await store.destroy(created.id);
    expect(await store.find(created.id, T0)).toBeUndefined();
  });

  it('ends sessions idle for 30 minutes or 12 hours old, deleting their secrets', async () => {
    const idle = await store.create(data, T0);
    expect(await store.find(idle.id, T0 + SESSION_IDLE_TIMEOUT_MS - 1)).toBeDefined();
    const later = T0 + SESSION_IDLE_TIMEOUT_MS - 1 + SESSION_IDLE_TIMEOUT_MS;
    expect(await store.find(idle.id, later)).toBeUndefined();
    const rows = await db.select().from(sessions);
    expect(rows.some((r) => r.idHash === hashSessionId(idle.id))).toBe(false);

    const busy = await store.create(data, T0);
    let nowMs = T0;
    let found = true;
    while (found && nowMs <= T0 + SESSION_ABSOLUTE_TIMEOUT_MS) {
      nowMs += SESSION_IDLE_TIMEOUT_MS / 2;
      found = (await store.find(busy.id, nowMs)) !== undefined;
    }
    expect(found).toBe(false);
    expect(nowMs).toBeGreaterThanOrEqual(T0 + SESSION_ABSOLUTE_TIMEOUT_MS);
  });

  it('sweeps expired sessions at sign-in', async () => {
    const old = await store.create(data, T0);
    await store.create(data, T0 + SESSION_ABSOLUTE_TIMEOUT_MS);
    const rows = await db.select().from(sessions);
    expect(rows.some((r) => r.idHash === hashSessionId(old.id))).toBe(false);
  });
});
