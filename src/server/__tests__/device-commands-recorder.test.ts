import type { FastifyReply } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { CSRF, buildTestBff, signIn } from './support/bff.ts';
import {
  startFakeUpstream,
  vendorPage,
  vendorSite,
  type FakeUpstream,
} from './support/fake-upstream.ts';

const account = { region: 'eu', clientId: 'client' } as const;
const command = {
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-05-01T11:00:00Z',
  endTime: '2026-05-01T12:00:00Z',
};

describe('the ledger tells the read model what the vendor accepted', () => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    testDb = await createTestDatabase('pglite');
    database = await testDb.open();
    fake.on('POST', '/device/BAT-1/commands', (_request, reply: FastifyReply) =>
      reply.code(202).send({ id: 'cmd_1', message: 'ok', timestamp: '2026-05-01T10:00:00Z' }),
    );
    fake.on('PUT', '/devices/BAT-1/commands/cmd_1/cancel', () => ({
      message: 'Command cancelled',
      commandId: 'cmd_1',
      timestamp: '2026-05-01T10:01:00Z',
    }));
    fake.on('GET', '/sites', () => vendorPage('sites', [vendorSite('PLANT-1', ['BAT-1'])]));
  });
  afterAll(async () => {
    await fake.close();
    await testDb.drop();
  });

  it('a submission and a cancel, each once, with who made them', async () => {
    const { app } = await buildTestBff(fake, { database });
    try {
      const cookie = await signIn(app, { clientId: 'client', operatorName: 'Ada' });
      const headers = { cookie, ...CSRF };
      const submitted = await app.inject({
        method: 'POST',
        url: '/api/devices/BAT-1/commands',
        headers: { ...headers, 'idempotency-key': 'k1' },
        payload: command,
      });
      expect(submitted.statusCode).toBe(202);
      expect(await app.deviceCommands.versionOf(account, 'BAT-1')).toBe(1);
      const cancelled = await app.inject({
        method: 'PUT',
        url: '/api/devices/BAT-1/commands/cmd_1/cancel',
        headers,
      });
      expect(cancelled.statusCode).toBe(200);
      const changes = await app.deviceCommands.changesSince(account, 'BAT-1', 0);
      expect(changes.changes.map((change) => change.kind)).toEqual([
        'commandAdded',
        'commandCancelled',
      ]);
      expect(changes.changes[0]).toMatchObject({ commandId: 'cmd_1', madeBy: 'Ada' });
      expect(Date.parse(changes.changes[0]?.at ?? '')).toBe(Date.parse('2026-05-01T10:00:00Z'));
      expect(Date.parse(changes.changes[0]?.startTime ?? '')).toBe(Date.parse(command.startTime));
    } finally {
      await app.close();
    }
  });
});
