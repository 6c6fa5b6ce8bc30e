import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '#infra/database.ts';
import { buildSandboxApp } from '../app.ts';
import { DrizzlePersistence } from '../db/drizzle-persistence.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { emptyChange } from '../state/persistence.ts';
import { EU, HOUR_MS, iso, MINUTE_MS } from './support/sandbox-harness.ts';

let dataDir: string;
let database: DatabaseHandle;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'powerdeck-sandbox-db-'));
  database = await openDatabase({ dataDir });
});
afterAll(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

const build = () => buildSandboxApp({ dataDir, database, fixture: 'demo', adminEnabled: true });

async function call(
  app: Awaited<ReturnType<typeof build>>,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: { token?: string; json?: unknown } = {},
) {
  const response = await app.inject({
    method,
    url,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.json === undefined ? {} : { payload: JSON.stringify(options.json) }),
  });
  return { status: response.statusCode, body: response.body ? response.json() : undefined };
}

async function tokenOf(app: Awaited<ReturnType<typeof build>>): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/eu/api/auth/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&client_id=demo-eu&client_secret=demo-eu-secret',
  });
  return response.json<{ access_token: string }>().access_token;
}

describe('persistence in the database (state survives a restart)', () => {
  it('keeps tokens, bindings, commands, batches, device conditions and the clock across app instances; reset clears them', async () => {
    const first = await build();
    await call(first, 'POST', '/_sandbox/reset');
    const token = await tokenOf(first);
    await call(first, 'POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-002' } });
    await call(first, 'POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-001' } });
    const nowMs = Date.parse((await call(first, 'GET', '/_sandbox/clock')).body.now);
    const startMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + HOUR_MS;
    const window = { startTime: iso(startMs), endTime: iso(startMs + HOUR_MS) };
    const single = await call(first, 'POST', `${EU}/device/BAT-EU-001-A/commands`, {
      token,
      json: { powerControl: { targetBatteryPowerW: 1000 }, ...window },
    });
    const batch = await call(first, 'POST', `${EU}/devices/commands`, {
      token,
      json: {
        devices: ['BAT-EU-001-B', 'BAT-EU-002-A'],
        command: { powerControl: { siteImportLimitW: 5000 }, ...window },
      },
    });
    expect(batch.status).toBe(202);
    await call(first, 'PUT', '/_sandbox/devices/BAT-EU-002-A', { json: { fault: true } });
    await call(first, 'POST', '/_sandbox/clock', { json: { now: iso(startMs + MINUTE_MS) } });
    const before = {
      sites: (await call(first, 'GET', `${EU}/sites`, { token })).body,
      single: (
        await call(first, 'GET', `${EU}/devices/BAT-EU-001-A/commands/${single.body.id}`, {
          token,
        })
      ).body,
    };
    // The batch answer names no command: the faulted device's command is in its history.
    const faultedHistory = await call(
      first,
      'GET',
      `${EU}/device/BAT-EU-002-A/commands?startTime=${window.startTime}&endTime=${window.endTime}`,
      { token },
    );
    const faultedId: string = faultedHistory.body.commands[0].id;
    expect(before.single.status).toBe('executing');
    await first.close();

    const second = await build();
    expect((await call(second, 'GET', `${EU}/sites`, { token })).body).toEqual(before.sites);
    expect(
      (
        await call(second, 'GET', `${EU}/devices/BAT-EU-001-A/commands/${single.body.id}`, {
          token,
        })
      ).body,
    ).toEqual(before.single);
    expect(
      (await call(second, 'GET', `${EU}/devices/BAT-EU-002-A/commands/${faultedId}`, { token }))
        .body,
    ).toMatchObject({ status: 'cancelled', cancellReason: 'deviceFault' });
    expect(
      Date.parse((await call(second, 'GET', '/_sandbox/clock')).body.now),
    ).toBeGreaterThanOrEqual(startMs + MINUTE_MS);
    const cancelled = await call(
      second,
      'PUT',
      `${EU}/devices/commands/${batch.body.batchCommandId}/cancel`,
      { token },
    );
    expect(cancelled.body.results.map((r: { status: string }) => r.status)).toEqual([
      'cancelled',
      'failed',
    ]);

    await call(second, 'POST', '/_sandbox/reset');
    await second.close();
    const third = await build();
    expect((await call(third, 'GET', `${EU}/sites`, { token })).body).toMatchObject({
      total: 0,
      sites: [],
    });
    const foreign = await call(third, 'POST', `${EU}/sites`, {
      token,
      json: { siteId: 'PLANT-EU-003' },
    });
    expect(foreign.status).toBe(409);
    await call(third, 'POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-001' } });
    expect(
      (await call(third, 'GET', `${EU}/devices/BAT-EU-001-A/commands/${single.body.id}`, { token }))
        .status,
    ).toBe(404);
    await third.close();
  });

  it('starts the fixture afresh over a data directory seeded from an older fixture revision', async () => {
    const first = await build();
    await call(first, 'POST', '/_sandbox/reset');
    const token = await tokenOf(first);
    await call(first, 'POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-001' } });
    await first.close();
    const persistence = await DrizzlePersistence.open(database);
    await persistence.reset({ fixture: 'demo', commands: [], bindings: [] });
    const second = await build();
    expect((await call(second, 'GET', `${EU}/sites`, { token })).body).toMatchObject({ total: 0 });
    expect(
      (await call(second, 'POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-003' } }))
        .status,
    ).toBe(409);
    await second.close();
  });

  it('writes a batch and its commands in one transaction: a failing command leaves no trace', async () => {
    const persistence = await DrizzlePersistence.open(database);
    const good: CommandEntity = {
      id: 'cmd_atomic_good',
      deviceId: 'BAT-EU-001-A',
      batchCommandId: 'batch_atomic',
      powerControl: { targetBatteryPowerW: 1 },
      startMs: 1,
      endMs: 2,
      status: 'received',
      receivedAtMs: 0,
    };
    // A NOT NULL column left empty makes the second insert fail inside the transaction.
    const bad = { ...good, id: 'cmd_atomic_bad', powerControl: null } as unknown as CommandEntity;
    const change = emptyChange();
    change.batch = {
      id: 'batch_atomic',
      clientId: 'demo-eu',
      region: 'eu',
      createdAtMs: 0,
      deviceIds: ['BAT-EU-001-A'],
    };
    change.commands.set(good.id, good);
    change.commands.set(bad.id, bad);
    await expect(persistence.write(change)).rejects.toThrow();
    const state = await persistence.load();
    expect(state.batches.find((b) => b.id === 'batch_atomic')).toBeUndefined();
    expect(await persistence.findCommand(good.id)).toBeUndefined();
  });
});

describe('persistence of telemetry inputs', () => {
  it('keeps a set configuration, the model origin and the commands in force across a restart', async () => {
    const first = await build();
    await call(first, 'POST', '/_sandbox/reset');
    const token = await tokenOf(first);
    await call(first, 'POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-001' } });
    const put = await call(first, 'PUT', `${EU}/devices/BAT-EU-001-A/configuration`, {
      token,
      json: { dischargeCutoffSocPercent: 20 },
    });
    expect(put.status).toBe(200);
    const nowMs = Date.parse((await call(first, 'GET', '/_sandbox/clock')).body.now);
    const startMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
    await call(first, 'POST', `${EU}/device/BAT-EU-001-B/commands`, {
      token,
      json: {
        powerControl: { targetBatteryPowerW: 3000 },
        startTime: iso(startMs),
        endTime: iso(startMs + HOUR_MS),
      },
    });
    await call(first, 'POST', '/_sandbox/clock', { json: { now: iso(startMs + 30 * MINUTE_MS) } });
    const query = `startTime=${iso(startMs - HOUR_MS)}&endTime=${iso(startMs + 30 * MINUTE_MS)}&size=500`;
    const before = await call(first, 'GET', `${EU}/devices/BAT-EU-001-B/historicalData?${query}`, {
      token,
    });
    await first.close();

    const second = await build();
    expect(
      (await call(second, 'GET', `${EU}/devices/BAT-EU-001-A/configuration`, { token })).body,
    ).toMatchObject({ dischargeCutoffSocPercent: 20 });
    const after = await call(second, 'GET', `${EU}/devices/BAT-EU-001-B/historicalData?${query}`, {
      token,
    });
    expect(after.body).toEqual(before.body);
    expect(
      (after.body as { data: { battery: { powerKw: number } }[] }).data
        .slice(-30)
        .map((t) => t.battery.powerKw),
    ).toEqual(Array.from({ length: 30 }, () => 3));
    await call(second, 'POST', '/_sandbox/reset');
    await call(second, 'POST', `${EU}/sites`, { token, json: { siteId: 'PLANT-EU-001' } });
    expect(
      (await call(second, 'GET', `${EU}/devices/BAT-EU-001-A/configuration`, { token })).body,
    ).toMatchObject({ dischargeCutoffSocPercent: 10 });
    await second.close();
  });
});
