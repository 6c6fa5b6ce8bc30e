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
import type { ContractResponse } from './support/contract-http.ts';
import {
  MAX_BATCH_DEVICES,
  MAX_HISTORY_RANGE_MS,
  RateLimitBodySchema,
  SiteSchema,
} from '#sandbox/vendor/schemas.ts';

/**
 * Limits: one test per limit, at and just past it (docs/upstream.md, Batches, History, Lifecycle,
 * Tokens, Rate limit): 50 devices per batch (powerdeck's cap, below the vendor's 100: Decisions),
 * a 30-day history range (exactly 30 days allowed, one second more refused), no overlap per device
 * (touching windows allowed), the token lifetime of `expires_in` (then 401), and the vendor's rate
 * limit: 2 requests per device per rolling minute, a batch counting once per device.
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
    await target.nextMinute();
    await target.upstream.cancelCommand(deviceId(), late);
    const query = async (fromMs: number, toMs: number, status?: string) =>
      (await historyOf(target, deviceId(), target.baseMs + fromMs, target.baseMs + toMs, status))
        .map((command) => command.id)
        .filter((id) => id === early || id === late)
        .sort();
    expect(await query(30 * MINUTE_MS, 2 * HOUR_MS)).toEqual([early]);
    await target.nextMinute();
    expect(await query(-HOUR_MS, 10 * HOUR_MS)).toEqual([early, late].sort());
    expect(await query(-HOUR_MS, 10 * HOUR_MS, 'cancelled')).toEqual([late]);
    await target.nextMinute();
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
      await target.nextMinute();
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
    await target.nextMinute();
    const after = await submit(target, deviceId(), target.window(2 * HOUR_MS, HOUR_MS));
    for (const id of [middle, before, after]) {
      await target.nextMinute();
      expect((await statusOf(target, deviceId(), id)).status).toBe('received');
    }
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
    await target.nextMinute();
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

describe('requests per device, 2 per rolling minute (spec 8 "not shown"; docs/upstream.md, Rate limit)', () => {
  const deviceId = () => target.config.deviceId;
  const range = () => ({ startTime: iso(target.baseMs), endTime: iso(target.baseMs + HOUR_MS) });

  /** Expects the rate limit's 429 about `deviceId` with its headers; returns `Retry-After`, s. */
  function expectRateLimited(response: ContractResponse, deviceId: string): number {
    expect(response.status, JSON.stringify(response.body)).toBe(429);
    const body = RateLimitBodySchema.parse(response.body);
    expect(body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(body.details).toEqual({ deviceId, limit: 2, windowSeconds: 60 });
    expect(response.headers).toMatchObject({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
    });
    expect(Number(response.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    const retryAfterS = Number(response.headers['retry-after']);
    expect(retryAfterS).toBeGreaterThan(0);
    expect(retryAfterS).toBeLessThanOrEqual(60);
    return retryAfterS;
  }

  it('2 requests about one device within a minute are answered, a read and a write alike', async () => {
    const probe = await target.rateLimitProbe([deviceId()]);
    expect((await probe.queryHistory(deviceId(), range())).status).toBe(200);
    const submitted = await probe.submitCommand(deviceId(), {
      powerControl: CHARGE_3KW,
      ...target.window(0, HOUR_MS),
    });
    expect(submitted.status).toBe(202);
  });

  it('the third is refused: 429 { code: RATE_LIMIT_EXCEEDED, message, details: { deviceId, limit, windowSeconds }, timestamp } with Retry-After and X-RateLimit-Limit, -Remaining, -Reset', async () => {
    const probe = await target.rateLimitProbe([deviceId()]);
    await probe.queryHistory(deviceId(), range());
    await probe.queryHistory(deviceId(), range());
    const refused = await probe.submitCommand(deviceId(), {
      powerControl: CHARGE_3KW,
      ...target.window(0, HOUR_MS),
    });
    expectRateLimited(refused, deviceId());
    // Refused before anything was created.
    await target.nextMinute();
    expect(await historyIds(target, deviceId())).toEqual([]);
  });

  it('the window rolls with the clock: a slot frees 60 s after the call that took it, and Retry-After says when', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock within the minute');
    const probe = await target.rateLimitProbe([deviceId()]);
    const startMs = Math.ceil((await admin.nowMs()) / SECOND_MS) * SECOND_MS + SECOND_MS;
    await admin.setClock(iso(startMs));
    expect((await probe.queryHistory(deviceId(), range())).status).toBe(200);
    await admin.setClock(iso(startMs + 30 * SECOND_MS));
    expect((await probe.queryHistory(deviceId(), range())).status).toBe(200);
    await admin.setClock(iso(startMs + 45 * SECOND_MS));
    // The call at 0 s holds its slot until 60 s (give or take the moments the calls took).
    const retryAfterS = expectRateLimited(
      await probe.queryHistory(deviceId(), range()),
      deviceId(),
    );
    expect(retryAfterS).toBeGreaterThanOrEqual(14);
    expect(retryAfterS).toBeLessThanOrEqual(16);
    await admin.setClock(iso(startMs + 61 * SECOND_MS));
    expect((await probe.queryHistory(deviceId(), range())).status).toBe(200);
    // The call at 30 s still holds the other until 90 s.
    expectRateLimited(await probe.queryHistory(deviceId(), range()), deviceId());
    await admin.setClock(iso(startMs + 91 * SECOND_MS));
    expect((await probe.queryHistory(deviceId(), range())).status).toBe(200);
  });

  it('a batch counts once per device: after it and one more call, the next call about each device is refused', async (context) => {
    const secondDeviceId = target.requireSetting(
      context,
      target.config.secondDeviceId,
      'CONTRACT_SECOND_DEVICE_ID',
    );
    const devices = [deviceId(), secondDeviceId];
    const probe = await target.rateLimitProbe(devices);
    const batch = await probe.submitBatch({
      devices,
      command: { powerControl: CHARGE_3KW, ...target.window(0, HOUR_MS) },
    });
    expect(batch.status).toBe(202);
    for (const id of devices) expect((await probe.queryHistory(id, range())).status).toBe(200);
    for (const id of devices) expectRateLimited(await probe.queryHistory(id, range()), id);
  });
});
