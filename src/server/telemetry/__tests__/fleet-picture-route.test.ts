/**
 * The fleet picture, from the snapshot of the latest samples to `GET /api/fleet-picture`: one
 * `latestData/query` call for the bound devices, every five minutes of the upstream's clock, and
 * the answer from the database (docs/verification.md, Fleet picture; decision 007, section 3).
 */
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { FleetPictureSchema } from '#domain/fleet-picture.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { buildTestBff, signIn, type TestBff } from '../../__tests__/support/bff.ts';
import {
  startFakeUpstream,
  vendorDevice,
  vendorPage,
  type FakeUpstream,
} from '../../__tests__/support/fake-upstream.ts';
import { SNAPSHOT_PERIOD_MS } from '#domain/fleet-picture.ts';

const T = Date.parse('2026-05-01T10:00:00Z');

/** The vendor's `DeviceTelemetry` of each listed device but `BAT-3`, which is silent. */
function latestData(request: FastifyRequest) {
  const { devices } = request.body as { devices: string[] };
  return devices
    .filter((deviceId) => deviceId !== 'BAT-3')
    .map((deviceId) => ({
      deviceId,
      timestamp: new Date(T - 30_000).toISOString(),
      battery: {
        powerKw: deviceId === 'BAT-1' ? 4 : -2,
        socPercent: deviceId === 'BAT-1' ? 75 : 15,
      },
      meter: { gridPowerKw: deviceId === 'BAT-1' ? -3.5 : 2.5 },
      pv: { powerKw: 0 },
    }));
}

describe('the fleet picture', () => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  let bff: TestBff;
  let cookie: string;

  beforeAll(async () => {
    fake = await startFakeUpstream();
    testDb = await createTestDatabase('pglite');
    database = await testDb.open();
    const site = {
      id: 'PLANT-1',
      name: 'Harbour',
      countryCode: 'DE',
      timezone: 'UTC+1:00',
      online: true,
      faultStatus: false,
      devices: ['BAT-1', 'BAT-2', 'BAT-3'].map((id) =>
        vendorDevice(id, 'PLANT-1', { batteryCapacityKwh: 10 }),
      ),
    };
    fake.on('GET', '/sites', () => vendorPage('sites', [site]));
    fake.on('POST', '/devices/latestData/query', latestData);
    // The read model reads each newly bound device's history once.
    for (const deviceId of ['BAT-1', 'BAT-2', 'BAT-3'])
      fake.on('GET', `/device/${deviceId}/commands`, () =>
        vendorPage('commands', [], { deviceId }),
      );
    bff = await buildTestBff(fake, {
      database,
      testing: { now: () => T, readModelTickMs: 0, fleetSnapshotTickMs: 0 },
    });
    bff.clock.nowMs = T;
    cookie = await signIn(bff.app);
  });
  afterAll(async () => {
    await bff?.app.close();
    await fake.close();
    await testDb.drop();
  });

  const picture = async () => {
    const answer = await bff.app.inject({
      method: 'GET',
      url: '/api/fleet-picture',
      headers: { cookie },
    });
    expect(answer.statusCode).toBe(200);
    return FleetPictureSchema.parse(answer.json());
  };
  const snapshotCalls = () =>
    fake.seen.filter((seen) => seen.url.includes('/devices/latestData/query'));

  it('reads the bound devices in one call and answers their power and state of charge', async () => {
    // The site list tells the BFF which devices are bound.
    expect(
      (await bff.app.inject({ method: 'GET', url: '/api/sites', headers: { cookie } })).statusCode,
    ).toBe(200);
    const before = await picture();
    expect(before.devices).toEqual({ total: 3, reporting: 0, silent: 3 });

    // The read model reads each newly bound device first: the snapshot waits for such reads, then
    // for a slot that leaves a change its call (decision 007, section 1).
    await bff.app.readModel.reads.runDue();
    bff.clock.nowMs = T + 60_000;
    await bff.app.fleetSnapshots.runDue();
    expect(snapshotCalls()).toHaveLength(1);
    expect(snapshotCalls()[0]?.body).toEqual({ devices: ['BAT-1', 'BAT-2', 'BAT-3'] });

    const now = await picture();
    expect(now.devices).toEqual({ total: 3, reporting: 2, silent: 1 });
    expect(now.power).toMatchObject({
      dischargingW: 4000,
      chargingW: 2000,
      gridExportW: 3500,
      gridImportW: 2500,
    });
    expect(now.energy).toEqual({ storedKwh: 9, capacityKwh: 20 });
    expect(now.sites[0]).toMatchObject({ siteId: 'PLANT-1', siteName: 'Harbour', reporting: 2 });
    expect(now.attention).toEqual([
      expect.objectContaining({ deviceId: 'BAT-3', reason: 'silent' }),
    ]);
    // Answering it again calls nothing upstream.
    const calls = fake.seen.length;
    await picture();
    expect(fake.seen.length).toBe(calls);
  });

  it('reads the devices again only once their five minutes have passed', async () => {
    await bff.app.fleetSnapshots.runDue();
    expect(snapshotCalls()).toHaveLength(1);
    bff.clock.nowMs = T + 60_000 + SNAPSHOT_PERIOD_MS;
    await bff.app.fleetSnapshots.runDue();
    expect(snapshotCalls()).toHaveLength(2);
  });
});
