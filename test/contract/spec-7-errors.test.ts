import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import {
  boundDevices,
  CHARGE_3KW,
  deviceLackingControl,
  expectError,
  expectInvalidRequest,
  historyIds,
  HOUR_MS,
  statusOf,
  submit,
  submitBatch,
} from './support/steps.ts';
import { BatchCancelResponseSchema } from '../../src/domain/batch.ts';
import { OAuthErrorBodySchema } from '../../src/domain/errors.ts';
import { SiteSchema } from '../../src/domain/device.ts';
import {
  POWER_CONTROL_PROPERTIES,
  POWER_CONTROL_SCHEMA_BOUNDS,
} from '../../src/domain/power-control.ts';

/**
 * Spec section 7: one test per row of the error table, then the error responses the spec leaves
 * "not shown", as we chose them (docs/architecture.md, Upstream contract: Errors): status codes,
 * `{ code, message, details? }`, RFC 6749 token errors, 401/403/404/429/5xx.
 */
const target = useContractTarget();

/** A bound device with a capability range whose max + 1 is still valid for the schema. */
async function rangedControl() {
  for (const device of await boundDevices(target)) {
    for (const property of POWER_CONTROL_PROPERTIES) {
      const range = device.capabilities[property];
      if (range && range.max + 1 <= POWER_CONTROL_SCHEMA_BOUNDS[property].max)
        return { device, property, range };
    }
  }
  return undefined;
}

describe('spec 7 error table', () => {
  it('cancel of a completed command: conflict response', async (context) => {
    const admin = target.requireAdmin(context, 'let a command complete');
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, deviceId, window);
    await admin.setClock(window.endTime);
    const error = expectError(
      await target.upstream.cancelCommand(deviceId, id),
      409,
      'not_cancellable',
    );
    expect(error.message.length).toBeGreaterThan(0);
  });

  it('new command whose window overlaps an existing command of the same device: rejected, the existing one unchanged', async () => {
    const deviceId = target.config.deviceId;
    const window = target.window(0, 2 * HOUR_MS);
    const existing = await submit(target, deviceId, window);
    const before = await statusOf(target, deviceId, existing);
    const historyBefore = await historyIds(target, deviceId);
    const refused = await target.upstream.submitCommand(deviceId, {
      powerControl: { targetBatteryPowerW: 2000 },
      ...target.window(-HOUR_MS, 2 * HOUR_MS),
    });
    const error = expectError(refused, 409, 'window_overlap');
    expect(error.details).toEqual({
      conflictingCommandId: existing,
      startTime: before.startTime,
      endTime: before.endTime,
    });
    expect(await statusOf(target, deviceId, existing)).toEqual(before);
    expect(historyBefore).toContain(existing);
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });

  it("control value outside the device's capability range although valid for the schema: rejected", async (context) => {
    const { device, property, range } = target.requireSetting(
      context,
      await rangedControl(),
      'a bound device with a capability range inside the schema bounds',
    );
    const historyBefore = await historyIds(target, device.deviceId);
    const refused = await target.upstream.submitCommand(device.deviceId, {
      powerControl: { [property]: range.max + 1 },
      ...target.window(0, HOUR_MS),
    });
    const error = expectError(refused, 422, 'capability_out_of_range');
    expect(error.message).toContain(property);
    expect(await historyIds(target, device.deviceId)).toEqual(historyBefore);
    // The range is inclusive: its bound itself is accepted.
    await submit(target, device.deviceId, target.window(0, HOUR_MS), { [property]: range.max });
  });

  it('control not supported by the device: the command can end as cancelled with reason notSupported', async (context) => {
    const admin = target.requireAdmin(context, 'move the clock to startTime');
    const { device, property } = target.requireSetting(
      context,
      await deviceLackingControl(target),
      'a bound device that lacks a control',
    );
    const window = target.window(0, HOUR_MS);
    const id = await submit(target, device.deviceId, window, { [property]: 1000 });
    await admin.setClock(window.startTime);
    expect(await statusOf(target, device.deviceId, id)).toMatchObject({
      status: 'cancelled',
      cancelReason: 'notSupported',
    });
  });

  it('powerControl with no control property: invalid request', async () => {
    const deviceId = target.config.deviceId;
    const historyBefore = await historyIds(target, deviceId);
    const refused = await target.upstream.submitCommand(deviceId, {
      powerControl: {},
      ...target.window(0, HOUR_MS),
    });
    expectInvalidRequest(refused, 'powerControl');
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });

  it('batch cancellation with partial failure: per-device results, both successful and failed', async (context) => {
    const deviceId = target.config.deviceId;
    const secondDeviceId = target.requireSetting(
      context,
      target.config.secondDeviceId,
      'CONTRACT_SECOND_DEVICE_ID',
    );
    const batch = await submitBatch(target, [deviceId, secondDeviceId], target.window(0, HOUR_MS));
    const first = batch.commands.find((command) => command.deviceId === deviceId);
    expect((await target.upstream.cancelCommand(deviceId, first?.id ?? '')).status).toBe(200);

    const response = await target.upstream.cancelBatch(batch.batchCommandId);
    expect(response.status).toBe(200);
    const { batchCommandId, results } = BatchCancelResponseSchema.parse(response.body);
    expect(batchCommandId).toBe(batch.batchCommandId);
    expect(results).toHaveLength(2);
    const failed = results.find((result) => result.deviceId === deviceId);
    const succeeded = results.find((result) => result.deviceId === secondDeviceId);
    expect(failed).toMatchObject({ commandId: first?.id, success: false, status: 'cancelled' });
    expect(failed?.error?.code).toBe('not_cancellable');
    expect(succeeded).toMatchObject({ success: true, status: 'cancelled' });
    expect(succeeded?.error).toBeUndefined();
  });
});

describe('spec 7 "not shown": error responses of our choice', () => {
  it('a missing token answers 401 invalid_token with WWW-Authenticate', async () => {
    const response = await target.upstream.listSites({ token: undefined });
    expectError(response, 401, 'invalid_token');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('an unknown token answers 401 invalid_token with WWW-Authenticate', async () => {
    const response = await target.upstream.queryStatus(target.config.deviceId, 'cmd-1', {
      token: 'not-a-token-the-service-issued',
    });
    expectError(response, 401, 'invalid_token');
    expect(response.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('a device of a site that is not bound answers 403 site_not_bound', async (context) => {
    const otherSiteId = target.requireSetting(
      context,
      target.config.otherSiteId,
      'CONTRACT_OTHER_SITE_ID',
    );
    const bound = await target.upstream.bindSite(otherSiteId);
    const [device] = SiteSchema.parse(bound.body).devices;
    expect((await target.upstream.unbindSite(otherSiteId)).status).toBe(204);
    const deviceId = device?.deviceId ?? '';
    expectError(
      await target.upstream.submitCommand(deviceId, {
        powerControl: CHARGE_3KW,
        ...target.window(0, HOUR_MS),
      }),
      403,
      'site_not_bound',
    );
    expectError(await target.upstream.queryStatus(deviceId, 'cmd-1'), 403, 'site_not_bound');
    expectError(
      await target.upstream.queryHistory(deviceId, {
        startTime: target.window(0, HOUR_MS).startTime,
        endTime: target.window(0, HOUR_MS).endTime,
      }),
      403,
      'site_not_bound',
    );
  });

  it('an unknown device answers 404 not_found', async () => {
    expectError(
      await target.upstream.submitCommand('NO-SUCH-DEVICE-0', {
        powerControl: CHARGE_3KW,
        ...target.window(0, HOUR_MS),
      }),
      404,
      'not_found',
    );
  });

  it('an unknown command of a bound device answers 404 not_found, for status and cancel', async () => {
    const deviceId = target.config.deviceId;
    expectError(await target.upstream.queryStatus(deviceId, 'no-such-command'), 404, 'not_found');
    expectError(await target.upstream.cancelCommand(deviceId, 'no-such-command'), 404, 'not_found');
  });

  it('an unknown batch answers 404 not_found', async () => {
    expectError(await target.upstream.cancelBatch('no-such-batch'), 404, 'not_found');
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

  it('an unknown power-control property answers 400 naming powerControl', async () => {
    expectInvalidRequest(
      await target.upstream.submitCommand(target.config.deviceId, {
        powerControl: { targetPowerW: 1000 },
        ...target.window(0, HOUR_MS),
      }),
      'powerControl',
    );
  });

  it('a value outside the schema bounds answers 400 naming the property', async () => {
    expectInvalidRequest(
      await target.upstream.submitCommand(target.config.deviceId, {
        powerControl: { chargeCutoffSocPercent: 101 },
        ...target.window(0, HOUR_MS),
      }),
      'chargeCutoffSocPercent',
    );
  });

  it('token request with another grant type answers 400 unsupported_grant_type (RFC 6749 5.2)', async () => {
    const response = await target.upstream.requestToken({
      grant_type: 'password',
      client_id: target.config.clientId,
      client_secret: target.config.clientSecret,
    });
    expect(response.status).toBe(400);
    expect(OAuthErrorBodySchema.parse(response.body).error).toBe('unsupported_grant_type');
  });

  it('token request without client_secret answers 400 invalid_request (RFC 6749 5.2)', async () => {
    const response = await target.upstream.requestToken({
      grant_type: 'client_credentials',
      client_id: target.config.clientId,
    });
    expect(response.status).toBe(400);
    expect(OAuthErrorBodySchema.parse(response.body).error).toBe('invalid_request');
  });

  it.each([
    ['JSON', 'application/json', '{"grant_type":"client_credentials"}'],
    ['malformed JSON', 'application/json', '{"grant_type":'],
  ])(
    'token request with a %s body answers 400 invalid_request in the RFC 6749 shape',
    async (_what, contentType, body) => {
      const response = await target.upstream.requestTokenRaw(contentType, body);
      expect(response.status).toBe(400);
      expect(OAuthErrorBodySchema.parse(response.body).error).toBe('invalid_request');
    },
  );

  it('token request with a wrong secret answers 401 invalid_client (RFC 6749 5.2)', async () => {
    const response = await target.upstream.requestToken({
      grant_type: 'client_credentials',
      client_id: target.config.clientId,
      client_secret: `${target.config.clientSecret}-wrong`,
    });
    expect(response.status).toBe(401);
    expect(OAuthErrorBodySchema.parse(response.body).error).toBe('invalid_client');
  });

  it('past the per-minute limit answers 429 rate_limited with Retry-After', async (context) => {
    const admin = target.requireAdmin(context, 'inject a rate limit');
    await admin.setFaults({ rateLimitPerMinute: 2 });
    const statuses: number[] = [];
    let limited;
    for (let attempt = 0; attempt < 5 && !limited; attempt += 1) {
      const response = await target.upstream.listSites();
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(limited).toBeDefined();
    expectError(limited ?? { status: 0, headers: {}, body: undefined }, 429, 'rate_limited');
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);
    await admin.setFaults({});
    expect((await target.upstream.listSites()).status).toBe(200);
  });

  it('an injected fault answers the chosen 5xx with an error body', async (context) => {
    const admin = target.requireAdmin(context, 'inject a server error');
    await admin.setFaults({ errorRate: 1, errorStatus: 503 });
    const response = await target.upstream.listSites();
    expect(response.status).toBe(503);
    expect(typeof (response.body as { code?: unknown }).code).toBe('string');
    await admin.setFaults({});
    expect((await target.upstream.listSites()).status).toBe(200);
  });
});
