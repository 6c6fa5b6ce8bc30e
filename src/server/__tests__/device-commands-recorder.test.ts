import type { FastifyReply } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.ts';
import type { DatabaseHandle } from '../../infra/database.ts';
import { submittedRecord } from '../../domain/read-model.ts';
import { MemoryDeviceCommands } from '../ledger/memory-device-commands.ts';
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
const ada = { person: { kind: 'named', name: 'Ada' } } as const;
const bob = { person: { kind: 'named', name: 'Bob' } } as const;

describe('the in-memory read model', () => {
  it('bumps the version on a new command and a cancellation, and says what changed', async () => {
    const model = new MemoryDeviceCommands();
    const record = submittedRecord('BAT-1', command, {
      id: 'cmd_1',
      timestamp: '2026-05-01T10:00:00Z',
    });
    expect(await model.versionOf(account, 'BAT-1')).toBe(0);
    expect(await model.recordSubmitted(account, 'BAT-1', record, { madeBy: ada })).toBe(1);
    // Idempotent: the same command again changes nothing.
    expect(await model.recordSubmitted(account, 'BAT-1', record, { madeBy: ada })).toBe(1);
    const cancellation = {
      deviceId: 'BAT-1',
      commandId: 'cmd_1',
      status: 'cancelled',
      cancelledAt: '2026-05-01T10:05:00Z',
      cancelReason: 'manuallyCancel',
    } as const;
    expect(await model.recordCancelled(account, cancellation, { madeBy: bob })).toBe(2);
    expect(await model.recordCancelled(account, cancellation, { madeBy: bob })).toBe(2);

    const since = await model.changesSince(account, 'BAT-1', 1);
    expect(since).toMatchObject({ sinceVersion: 1, version: 2, complete: true });
    expect(since.changes).toEqual([
      expect.objectContaining({
        version: 2,
        kind: 'commandCancelled',
        commandId: 'cmd_1',
        at: '2026-05-01T10:05:00Z',
        cancelReason: 'manuallyCancel',
        madeBy: 'Bob',
      }),
    ]);
    // A person's own changes never make their view stale; the others' do.
    expect(
      (await model.changesSince(account, 'BAT-1', 0, { exceptBy: bob.person })).changes,
    ).toHaveLength(1);
    expect(
      (await model.changesSince(account, 'BAT-1', 0, { exceptBy: ada.person })).changes,
    ).toEqual([expect.objectContaining({ kind: 'commandCancelled' })]);
    // Another account's device of the same ID is another device.
    expect(await model.versionOf({ region: 'au', clientId: 'client' }, 'BAT-1')).toBe(0);
  });
});

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
      const cookie = await signIn(app, { clientId: 'client' });
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
      expect(changes.changes[0]).toMatchObject({
        commandId: 'cmd_1',
        at: '2026-05-01T10:00:00Z',
        startTime: command.startTime,
      });
    } finally {
      await app.close();
    }
  });
});
