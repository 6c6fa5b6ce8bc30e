import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import {
  batchCommandsOf,
  CHARGE_3KW,
  DAY_MS,
  expectError,
  expectInvalidRequest,
  historyIds,
  historyOf,
  HOUR_MS,
  MINUTE_MS,
  SECOND_MS,
  statusOf,
  submit,
  submitBatch,
} from './support/steps.ts';
import {
  MAX_BATCH_DEVICES,
  MAX_HISTORY_RANGE_MS,
  SiteSchema,
} from '../../src/sandbox/vendor/schemas.ts';

/**
 * Limits: one test per limit, at and just past it (docs/upstream.md, Batches, History, Lifecycle,
 * Tokens): 50 devices per batch (powerdeck's cap, below the vendor's 100: Decisions), a 30-day
 * history range (exactly 30 days allowed, one second more refused), no overlap per device (touching
 * windows allowed), the token lifetime of `expires_in` (then 401).
 */
const target = useContractTarget();

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** Binds the site with more than 50 devices and returns its device IDs. */
async function largeSiteDevices(siteId: string): Promise<string[]> {
  const response = await target.upstream.bindSite(siteId);
  expect(response.status).toBe(200);
  target.trackBinding(siteId);
  const site = SiteSchema.parse((await target.upstream.getSite(siteId)).body);
  const devices = (site.devices ?? []).map((device) => device.id);
  expect(devices.length).toBeGreaterThan(MAX_BATCH_DEVICES);
  return devices;
}

describe('devices per batch command, 50 maximum (docs/upstream.md, Batches)', () => {
  it('a batch of exactly 50 devices is accepted, one command per device, each found in its history', async (context) => {
    const siteId = target.requireSetting(
      context,
      target.config.largeSiteId,
      'CONTRACT_LARGE_SITE_ID',
    );
    const devices = (await largeSiteDevices(siteId)).slice(0, MAX_BATCH_DEVICES);
    const window = target.window(0, HOUR_MS);
    const batch = await submitBatch(target, devices, window);
    for (const deviceId of [devices[0] ?? '', devices.at(-1) ?? '']) {
      const commands = await batchCommandsOf(target, deviceId, window, batch);
      expect(commands.map((command) => command.status)).toEqual(['received']);
    }
  });

  it('a batch of 51 devices is refused as a whole (400 naming devices), though the vendor takes 100', async (context) => {
    const siteId = target.requireSetting(
      context,
      target.config.largeSiteId,
      'CONTRACT_LARGE_SITE_ID',
    );
    const devices = (await largeSiteDevices(siteId)).slice(0, MAX_BATCH_DEVICES + 1);
    const historyBefore = await historyIds(target, devices[0] ?? '');
    const refused = await target.upstream.submitBatch({
      devices,
      command: { powerControl: CHARGE_3KW, ...target.window(0, HOUR_MS) },
    });
    expectInvalidRequest(refused, 'devices');
    expect(await historyIds(target, devices[0] ?? '')).toEqual(historyBefore);
  });

  it('a batch naming a device twice is refused (400 naming devices)', async () => {
    const deviceId = target.config.deviceId;
    expectInvalidRequest(
      await target.upstream.submitBatch({
        devices: [deviceId, deviceId],
        command: { powerControl: CHARGE_3KW, ...target.window(0, HOUR_MS) },
      }),
      'devices',
    );
  });
});

describe('command history time range, 30 days maximum (docs/upstream.md, History)', () => {
  const deviceId = () => target.config.deviceId;

  it('a range of exactly 30 days is allowed', async () => {
    const response = await target.upstream.queryHistory(deviceId(), {
      startTime: iso(target.baseMs - MAX_HISTORY_RANGE_MS),
      endTime: iso(target.baseMs),
    });
    expect(response.status).toBe(200);
    expect(MAX_HISTORY_RANGE_MS).toBe(30 * DAY_MS);
  });

  it('a range of 30 days and 1 second is refused (400 naming endTime)', async () => {
    expectInvalidRequest(
      await target.upstream.queryHistory(deviceId(), {
        startTime: iso(target.baseMs - MAX_HISTORY_RANGE_MS - SECOND_MS),
        endTime: iso(target.baseMs),
      }),
      'endTime',
    );
  });

  it('the range is required: without startTime or endTime the query is refused (400 naming it)', async () => {
    expectInvalidRequest(
      await target.upstream.queryHistory(deviceId(), { endTime: iso(target.baseMs) }),
      'startTime',
    );
    expectInvalidRequest(
      await target.upstream.queryHistory(deviceId(), { startTime: iso(target.baseMs) }),
      'endTime',
    );
  });

  it('the status filter and the range select the commands whose window intersects it', async () => {
    const early = await submit(target, deviceId(), target.window(0, HOUR_MS));
    const late = await submit(target, deviceId(), target.window(5 * HOUR_MS, HOUR_MS));
    await target.upstream.cancelCommand(deviceId(), late);
    const query = async (fromMs: number, toMs: number, status?: string) =>
      (await historyOf(target, deviceId(), target.baseMs + fromMs, target.baseMs + toMs, status))
        .map((command) => command.id)
        .filter((id) => id === early || id === late)
        .sort();
    expect(await query(30 * MINUTE_MS, 2 * HOUR_MS)).toEqual([early]);
    expect(await query(-HOUR_MS, 10 * HOUR_MS)).toEqual([early, late].sort());
    expect(await query(-HOUR_MS, 10 * HOUR_MS, 'cancelled')).toEqual([late]);
    expect(await query(2 * HOUR_MS, 4 * HOUR_MS)).toEqual([]);
  });
});

describe('overlap of effective windows, none allowed per device (docs/upstream.md, Lifecycle)', () => {
  const deviceId = () => target.config.deviceId;

  it('a window overlapping an active command of the same device is refused at once (409 TIME_WINDOW_OVERLAP)', async () => {
    const existing = await submit(target, deviceId(), target.window(HOUR_MS, 2 * HOUR_MS));
    for (const [offsetMs, durationMs] of [
      [0, HOUR_MS + SECOND_MS],
      [2 * HOUR_MS, 2 * HOUR_MS],
      [HOUR_MS + MINUTE_MS, MINUTE_MS],
      [0, 4 * HOUR_MS],
    ] as const) {
      const error = expectError(
        await target.upstream.submitCommand(deviceId(), {
          powerControl: CHARGE_3KW,
          ...target.window(offsetMs, durationMs),
        }),
        409,
        'TIME_WINDOW_OVERLAP',
      );
      expect(error.message).toContain(existing);
    }
  });

  it('touching windows are allowed: one ends exactly where the other starts, either way', async () => {
    const middle = await submit(target, deviceId(), target.window(HOUR_MS, HOUR_MS));
    const before = await submit(target, deviceId(), target.window(0, HOUR_MS));
    const after = await submit(target, deviceId(), target.window(2 * HOUR_MS, HOUR_MS));
    for (const id of [middle, before, after])
      expect((await statusOf(target, deviceId(), id)).status).toBe('received');
  });

  it('the same window on another device is allowed (overlap is per device)', async (context) => {
    const secondDeviceId = target.requireSetting(
      context,
      target.config.secondDeviceId,
      'CONTRACT_SECOND_DEVICE_ID',
    );
    const window = target.window(0, HOUR_MS);
    await submit(target, deviceId(), window);
    await submit(target, secondDeviceId, window);
  });

  it('a cancelled command no longer blocks its window', async () => {
    const window = target.window(0, HOUR_MS);
    const cancelled = await submit(target, deviceId(), window);
    await target.upstream.cancelCommand(deviceId(), cancelled);
    await submit(target, deviceId(), window);
  });
});

describe('token lifetime, given by expires_in in seconds (docs/upstream.md, Tokens)', () => {
  it('the token response states a positive lifetime in whole seconds, and the token works', async () => {
    const { accessToken, expiresInS } = await target.newClient().signIn();
    expect(Number.isInteger(expiresInS) && expiresInS > 0).toBe(true);
    expect((await target.upstream.listSites({}, { token: accessToken })).status).toBe(200);
  });

  it('a token is accepted until expires_in has passed, then answers 401 UNAUTHORIZED', async (context) => {
    const admin = target.requireAdmin(context, 'shorten token lifetimes and move the clock');
    await admin.setFaults({ tokenTtlS: 60 });
    const client = target.newClient();
    const { accessToken, expiresInS } = await client.signIn();
    expect(expiresInS).toBe(60);
    await admin.advanceClock((expiresInS - 1) * SECOND_MS);
    expect((await client.listSites()).status).toBe(200);
    await admin.advanceClock(2 * SECOND_MS);
    const expired = await client.listSites();
    expectError(expired, 401, 'UNAUTHORIZED');
    expect(expired.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    // A new token of the same client works again.
    await client.signIn();
    expect(client.accessToken).not.toBe(accessToken);
    expect((await client.listSites()).status).toBe(200);
  });
});
