import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import {
  boundDevices,
  CHARGE_3KW,
  expectError,
  expectInvalidRequest,
  historyIds,
  HOUR_MS,
  statusOf,
  submit,
} from './support/steps.ts';
import {
  ErrorBodySchema,
  OAUTH_ERROR_CODES,
  RateLimitBodySchema,
  SiteSchema,
} from '#sandbox/vendor/schemas.ts';
import { z } from 'zod';

/**
 * Errors (docs/upstream.md, Errors): one test per refusal the product must handle (a completed
 * command cancelled, an overlap, a value outside the device's range, a control the device lacks, an
 * empty power control; a batch cancel that partly fails is in batches.test.ts) with the vendor's
 * answer to it, then the vendor's error shapes and codes: `{ errorCode, message, timestamp }`, 404
 * for "not found or not yours", RFC 6749 token errors, the rate limit's 429 and the 5xx.
 */
const target = useContractTarget();

const OAuthErrorSchema = z.object({
  error: z.enum(OAUTH_ERROR_CODES as [string, ...string[]]),
  error_description: z.string().optional(),
});

describe('the refusals the product must handle, as the vendor answers them', () => {
  it('cancel of a completed command: 409 COMMAND_NOT_CANCELLABLE', async (context) => {
    const admin = target.requireAdmin(context, 'let a command complete');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(window.endTime);
    const error = expectError(
      await target.upstream.cancelCommand(deviceId, id),
      409,
      'COMMAND_NOT_CANCELLABLE',
    );
    expect(error.message.length).toBeGreaterThan(0);
  });

  it('new command whose window overlaps an existing command of the same device: 409 TIME_WINDOW_OVERLAP, the existing one unchanged, nothing created', async () => {
    const deviceId = target.config.deviceId;
    const existing = await submit(target, deviceId, target.window(0, 2 * HOUR_MS));
    const before = await statusOf(target, deviceId, existing);
    await target.nextMinute();
    const historyBefore = await historyIds(target, deviceId);
    const refused = await target.upstream.submitCommand(deviceId, {
      powerControl: { targetBatteryPowerW: 2000 },
      ...target.window(-HOUR_MS, 2 * HOUR_MS),
    });
    expect(expectError(refused, 409, 'TIME_WINDOW_OVERLAP').message).toContain(existing);
    await target.nextMinute();
    expect(await statusOf(target, deviceId, existing)).toEqual(before);
    expect(historyBefore).toContain(existing);
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });

  it("targetBatteryPowerW outside the device's kW data although valid for the schema: 422 CAPABILITY_EXCEEDED", async () => {
    const device = (await boundDevices(target)).find((d) => d.id === target.config.deviceId);
    if (!device) throw new Error('the configured device is not among the bound devices');
    const maxW = Math.round(device.maxDischargePowerKw * 1000);
    const minW = -Math.round(device.maxChargePowerKw * 1000);
    const historyBefore = await historyIds(target, device.id);
    for (const watts of [maxW + 1, minW - 1]) {
      await target.nextMinute();
      const refused = await target.upstream.submitCommand(device.id, {
        powerControl: { targetBatteryPowerW: watts },
        ...target.window(0, HOUR_MS),
      });
      expect(expectError(refused, 422, 'CAPABILITY_EXCEEDED').message).toContain(
        'targetBatteryPowerW',
      );
    }
    expect(await historyIds(target, device.id)).toEqual(historyBefore);
    // The range is inclusive: its bounds themselves are accepted.
    await target.nextMinute();
    await submit(target, device.id, target.window(0, HOUR_MS), { targetBatteryPowerW: maxW });
    await submit(target, device.id, target.window(HOUR_MS, HOUR_MS), { targetBatteryPowerW: minW });
  });

  it('control not supported by the device: accepted, the command ends cancelled with reason notSupported', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock to startTime');
    const { deviceId, property } = target.requireSetting(
      context,
      target.config.unsupportedControl,
      'CONTRACT_UNSUPPORTED_CONTROL',
    );
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window, { [property]: 1000 });
    await admin.setClock(window.startTime);
    expect(await statusOf(target, deviceId, id)).toMatchObject({
      status: 'cancelled',
      cancellReason: 'notSupported',
    });
  });

  it('powerControl with no control property: 400 INVALID_REQUEST, nothing created', async () => {
    const deviceId = target.config.deviceId;
    const historyBefore = await historyIds(target, deviceId);
    const refused = await target.upstream.submitCommand(deviceId, {
      powerControl: {},
      ...target.window(0, HOUR_MS),
    });
    expectInvalidRequest(refused, 'powerControl');
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });
});

describe('not found, or not yours: 404, never 403 (docs/upstream.md, Decisions)', () => {
  it('a device of a site not bound to the client answers 404 for every operation, as an unknown one does', async (context) => {
    const otherSiteId = target.requireSetting(
      context,
      target.config.otherSiteId,
      'CONTRACT_OTHER_SITE_ID',
    );
    expect((await target.upstream.bindSite(otherSiteId)).status).toBe(200);
    const site = SiteSchema.parse((await target.upstream.getSite(otherSiteId)).body);
    expect((await target.upstream.unbindSite(otherSiteId)).status).toBe(200);
    const deviceId = site.devices?.[0]?.id ?? '';
    const window = target.window(0, HOUR_MS);
    for (const response of [
      await target.upstream.submitCommand(deviceId, { powerControl: CHARGE_3KW, ...window }),
      await target.upstream.queryStatus(deviceId, 'cmd-1'),
      await target.upstream.cancelCommand(deviceId, 'cmd-1'),
      await target.upstream.queryHistory(deviceId, { ...window }),
      await target.upstream.getDevice(deviceId),
      await target.upstream.getSite(otherSiteId),
    ])
      expectError(response, 404, 'NOT_FOUND');
  });

  it('the words do not tell an unbound device from an unknown one', async (context) => {
    const otherSiteId = target.requireSetting(
      context,
      target.config.otherSiteId,
      'CONTRACT_OTHER_SITE_ID',
    );
    await target.upstream.bindSite(otherSiteId);
    const site = SiteSchema.parse((await target.upstream.getSite(otherSiteId)).body);
    await target.upstream.unbindSite(otherSiteId);
    const deviceId = site.devices?.[0]?.id ?? '';
    const unbound = ErrorBodySchema.parse((await target.upstream.getDevice(deviceId)).body);
    const unknown = ErrorBodySchema.parse(
      (await target.upstream.getDevice('NO-SUCH-DEVICE-0')).body,
    );
    expect(unbound.message.replace(deviceId, '<id>')).toBe(
      unknown.message.replace('NO-SUCH-DEVICE-0', '<id>'),
    );
  });

  it('an unknown device answers 404 NOT_FOUND', async () => {
    expectError(
      await target.upstream.submitCommand('NO-SUCH-DEVICE-0', {
        powerControl: CHARGE_3KW,
        ...target.window(0, HOUR_MS),
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('an unknown command of a bound device answers 404 NOT_FOUND, for status and cancel', async () => {
    const deviceId = target.config.deviceId;
    expectError(await target.upstream.queryStatus(deviceId, 'no-such-command'), 404, 'NOT_FOUND');
    expectError(await target.upstream.cancelCommand(deviceId, 'no-such-command'), 404, 'NOT_FOUND');
  });

  it('a command of another device answers 404 NOT_FOUND', async (context) => {
    const secondDeviceId = target.requireSetting(
      context,
      target.config.secondDeviceId,
      'CONTRACT_SECOND_DEVICE_ID',
    );
    const id = await submit(target, target.config.deviceId, target.window(0, HOUR_MS));
    expectError(await target.upstream.queryStatus(secondDeviceId, id), 404, 'NOT_FOUND');
  });

  it('an unknown batch answers 404 NOT_FOUND', async () => {
    expectError(await target.upstream.cancelBatch('no-such-batch'), 404, 'NOT_FOUND');
  });
});

describe('the error shape: { errorCode, message, timestamp } (docs/upstream.md, Errors)', () => {
  it('a missing token answers 401 UNAUTHORIZED with WWW-Authenticate', async () => {
    const response = await target.upstream.listSites({}, { token: undefined });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('an unknown token answers 401 UNAUTHORIZED with WWW-Authenticate', async () => {
    const response = await target.upstream.queryStatus(target.config.deviceId, 'cmd-1', {
      token: 'not-a-token-the-service-issued',
    });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('every error is stamped with a UTC timestamp', async () => {
    const error = expectError(
      await target.upstream.getDevice('NO-SUCH-DEVICE-0'),
      404,
      'NOT_FOUND',
    );
    expect(error.timestamp).toMatch(/Z$/);
  });

  it('a path ID outside the ID pattern answers 400 naming deviceId, never 5xx', async () => {
    expectInvalidRequest(await target.upstream.queryStatus('BAT.1', 'cmd-1'), 'deviceId');
  });

  it('a command whose endTime is not after startTime answers 400 naming endTime', async () => {
    const window = target.window(0, HOUR_MS);
    expectInvalidRequest(
      await target.upstream.submitCommand(target.config.deviceId, {
        powerControl: CHARGE_3KW,
        startTime: window.endTime,
        endTime: window.startTime,
      }),
      'endTime',
    );
  });

  it('a timestamp that is not UTC answers 400 naming startTime', async () => {
    const window = target.window(0, HOUR_MS);
    expectInvalidRequest(
      await target.upstream.submitCommand(target.config.deviceId, {
        powerControl: CHARGE_3KW,
        startTime: window.startTime.replace('Z', '+01:00'),
        endTime: window.endTime,
      }),
      'startTime',
    );
  });

  it('a power control value that is not a whole number answers 400 naming it', async () => {
    expectInvalidRequest(
      await target.upstream.submitCommand(target.config.deviceId, {
        powerControl: { targetBatteryPowerW: 1500.5 },
        ...target.window(0, HOUR_MS),
      }),
      'targetBatteryPowerW',
    );
  });

  it.each([
    ['chargeCutoffSocPercent', 101],
    ['chargeCutoffSocPercent', 4],
    ['dischargeCutoffSocPercent', 4],
    ['siteImportLimitW', 65_536],
    ['siteExportLimitW', -1],
  ])(
    'the schema bounds: %s %i answers 400 naming it (SoC 5..100, site limits 0..65535)',
    async (property, value) => {
      expectInvalidRequest(
        await target.upstream.submitCommand(target.config.deviceId, {
          powerControl: { [property]: value },
          ...target.window(0, HOUR_MS),
        }),
        property,
      );
    },
  );

  it('the schema bounds themselves are accepted', async () => {
    await submit(target, target.config.deviceId, target.window(0, HOUR_MS), {
      chargeCutoffSocPercent: 100,
      dischargeCutoffSocPercent: 5,
      siteImportLimitW: 65_535,
    });
  });

  it('token request with another grant type answers 400 unsupported_grant_type (RFC 6749 5.2)', async () => {
    const response = await target.upstream.requestToken({
      grant_type: 'password',
      client_id: target.config.clientId,
      client_secret: target.config.clientSecret,
    });
    expect(response.status).toBe(400);
    expect(OAuthErrorSchema.parse(response.body).error).toBe('unsupported_grant_type');
  });

  it('token request without client_secret answers 400 invalid_request (RFC 6749 5.2)', async () => {
    const response = await target.upstream.requestToken({
      grant_type: 'client_credentials',
      client_id: target.config.clientId,
    });
    expect(response.status).toBe(400);
    expect(OAuthErrorSchema.parse(response.body).error).toBe('invalid_request');
  });

  it.each([
    ['JSON', 'application/json', '{"grant_type":"client_credentials"}'],
    ['malformed JSON', 'application/json', '{"grant_type":'],
  ])(
    'token request with a %s body answers 400 invalid_request in the RFC 6749 shape',
    async (_what, contentType, body) => {
      const response = await target.upstream.requestTokenRaw(contentType, body);
      expect(response.status).toBe(400);
      expect(OAuthErrorSchema.parse(response.body).error).toBe('invalid_request');
    },
  );

  it('token request with a wrong secret answers 401 invalid_client (RFC 6749 5.2)', async () => {
    const response = await target.upstream.requestToken({
      grant_type: 'client_credentials',
      client_id: target.config.clientId,
      client_secret: `${target.config.clientSecret}-wrong`,
    });
    expect(response.status).toBe(401);
    expect(OAuthErrorSchema.parse(response.body).error).toBe('invalid_client');
  });
});

describe('rate limit and failures (docs/upstream.md, Rate limit, Errors)', () => {
  it('past the limit answers 429 { code: RATE_LIMIT_EXCEEDED, message, details, timestamp } with Retry-After', async (context) => {
    const admin = target.requireAdmin(context, 'inject a rate limit');
    await admin.setFaults({ rateLimitPerMinute: 2 });
    const statuses: number[] = [];
    let limited;
    for (let attempt = 0; attempt < 5 && !limited; attempt += 1) {
      const response = await target.upstream.getDevice(target.config.deviceId);
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    const body = RateLimitBodySchema.parse(limited?.body);
    expect(body.details).toMatchObject({ deviceId: target.config.deviceId, windowSeconds: 60 });
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);
    await admin.setFaults({});
    expect((await target.upstream.listSites()).status).toBe(200);
  });

  it('an injected fault answers the chosen 5xx as { errorCode, message, timestamp }', async (context) => {
    const admin = target.requireAdmin(context, 'inject a server error');
    await admin.setFaults({ errorRate: 1, errorStatus: 503 });
    expectError(await target.upstream.listSites(), 503, 'SERVICE_UNAVAILABLE');
    await admin.setFaults({ errorRate: 1, errorStatus: 500 });
    expectError(await target.upstream.listSites(), 500, 'INTERNAL_ERROR');
    await admin.setFaults({});
    expect((await target.upstream.listSites()).status).toBe(200);
  });
});
