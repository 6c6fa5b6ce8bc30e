import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { CSRF, buildTestBff, signIn, type TestBff } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';
import { SUBMITTED_COMMAND as command } from './support/ledger-setup.ts';

describe.each(DATABASE_KINDS)('two BFF instances on one %s database', (kind) => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  let first: TestBff;
  let second: TestBff;
  /** Holds the fake's answer to a submission until the test lets it go. */
  let release: () => void = () => undefined;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    fake.on('POST', '/device/BAT-1/commands', async (_request, reply: FastifyReply) => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return reply
        .code(202)
        .send({ id: 'cmd_1', message: 'accepted', timestamp: command.startTime });
    });
    testDb = await createTestDatabase(kind);
    database = await testDb.open();
    // One session key, as instances behind one load balancer share it (docs/security.md).
    const sessionKey = randomBytes(32).toString('base64');
    first = await buildTestBff(fake, { database, sessionKey, testing: { ledgerLeaseMs: 5_000 } });
    second = await buildTestBff(fake, { database, sessionKey, testing: { ledgerLeaseMs: 5_000 } });
  });
  afterAll(async () => {
    await first.app.close();
    await second.app.close();
    await fake.close();
    await testDb.drop();
  });

  it('send a submission once: the other instance waits for the lease, then replays', async () => {
    const cookie = await signIn(first.app);
    const submit = (bff: TestBff, key?: string) =>
      bff.app.inject({
        method: 'POST',
        url: '/api/devices/BAT-1/commands',
        headers: { cookie, ...CSRF, ...(key ? { 'idempotency-key': `"${key}"` } : {}) },
        payload: command,
      });
    const posts = () => fake.seen.filter((s) => s.method === 'POST').length;

    const underWay = submit(first, 'shared-key');
    await expect.poll(posts).toBe(1);

    const sameKey = await submit(second, 'shared-key');
    expect(sameKey.statusCode).toBe(409);
    expect(sameKey.json().code).toBe('idempotency_in_progress');
    expect(sameKey.headers['retry-after']).toBeDefined();
    const sameWindow = await submit(second);
    expect(sameWindow.statusCode).toBe(409);
    expect(sameWindow.json().code).toBe('window_unsettled');

    release();
    const answered = await underWay;
    expect(answered.statusCode).toBe(202);
    const replayed = await submit(second, 'shared-key');
    expect(replayed.statusCode).toBe(202);
    expect(replayed.json()).toEqual(answered.json());
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(posts()).toBe(1);
  });
});
