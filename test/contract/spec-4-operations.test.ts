import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import {
  boundDevices,
  CHARGE_3KW,
  expectError,
  historyIds,
  HOUR_MS,
  statusOf,
  submitBatch,
} from './support/steps.ts';
import { SiteListSchema, SiteSchema } from '../../src/domain/device.ts';
import { BatchCancelResponseSchema } from '../../src/domain/batch.ts';
import { TokenResponseSchema } from '../../src/domain/token.ts';

/**
 * Spec sections 4 and 5: the operations of the endpoint table with the outcomes we chose where
 * the spec shows none (docs/architecture.md, Upstream contract), site binding (spec 5 rule 5) and
 * region isolation.
 */
const target = useContractTarget();

async function listedSiteIds(): Promise<string[]> {
  const response = await target.upstream.listSites();
  expect(response.status).toBe(200);
  return SiteListSchema.parse(response.body).sites.map((site) => site.siteId);
}

describe('spec 4 obtain token', () => {
  it('a form POST with client credentials answers the JSON of 2.6: Bearer token and expires_in', async () => {
    const response = await target.upstream.requestToken({
      grant_type: 'client_credentials',
      client_id: target.config.clientId,
      client_secret: target.config.clientSecret,
    });
    expect(response.status).toBe(200);
    const token = TokenResponseSchema.parse(response.body);
    expect(token.token_type).toBe('Bearer');
    expect(token.expires_in).toBeGreaterThan(0);
  });
});

describe('spec 4 site binding and the authorized site list (spec 5 rule 5)', () => {
  it('bind site answers 201 with the site entry; binding again answers 200', async () => {
    const siteId = target.config.siteId;
    expect((await target.upstream.unbindSite(siteId)).status).toBe(204);
    const first = await target.upstream.bindSite(siteId);
    expect(first.status).toBe(201);
    const site = SiteSchema.parse(first.body);
    expect(site.siteId).toBe(siteId);
    expect(site.devices.map((device) => device.deviceId)).toContain(target.config.deviceId);
    const again = await target.upstream.bindSite(siteId);
    expect(again.status).toBe(200);
    expect(SiteSchema.parse(again.body)).toEqual(site);
  });

  it('binding an unknown site answers 404 not_found', async () => {
    expectError(await target.upstream.bindSite('NO-SUCH-SITE-0'), 404, 'not_found');
  });

  it('list authorized sites answers exactly the bound sites, each with devices and capabilities', async () => {
    const listed = await listedSiteIds();
    expect(listed).toContain(target.config.siteId);
    if (target.config.otherSiteId) expect(listed).not.toContain(target.config.otherSiteId);
    const devices = await boundDevices(target);
    const device = devices.find((candidate) => candidate.deviceId === target.config.deviceId);
    expect(device?.capabilities.targetBatteryPowerW).toBeDefined();
  });

  it('unbind site answers 204; the site leaves the list, its devices answer 403; unbinding again answers 404', async () => {
    const siteId = target.config.siteId;
    expect((await target.upstream.unbindSite(siteId)).status).toBe(204);
    expect(await listedSiteIds()).not.toContain(siteId);
    expectError(
      await target.upstream.submitCommand(target.config.deviceId, {
        powerControl: CHARGE_3KW,
        ...target.window(0, HOUR_MS),
      }),
      403,
      'site_not_bound',
    );
    expectError(await target.upstream.unbindSite(siteId), 404, 'not_found');
  });

  it('a valid token alone gives no access: commands of a device answer 403 until its site is bound again', async () => {
    const deviceId = target.config.deviceId;
    const window = target.window(0, HOUR_MS);
    const submitted = await target.upstream.submitCommand(deviceId, {
      powerControl: CHARGE_3KW,
      ...window,
    });
    expect(submitted.status).toBe(202);
    const { id } = submitted.body as { id: string };
    target.track(deviceId, id);
    await target.upstream.unbindSite(target.config.siteId);
    expectError(await target.upstream.queryStatus(deviceId, id), 403, 'site_not_bound');
    expectError(await target.upstream.cancelCommand(deviceId, id), 403, 'site_not_bound');
    await target.upstream.bindSite(target.config.siteId);
    expect((await statusOf(target, deviceId, id)).status).toBe('received');
  });
});

describe('spec 4 regions (our choice: clients, sites and devices belong to one region)', () => {
  it("a client of the other region cannot bind this region's site or reach its devices", async (context) => {
    const other = target.requireSetting(
      context,
      target.otherRegionClient(),
      'CONTRACT_OTHER_BASE_URL, CONTRACT_OTHER_CLIENT_ID and CONTRACT_OTHER_CLIENT_SECRET',
    );
    await other.signIn();
    expectError(await other.bindSite(target.config.siteId), 404, 'not_found');
    expectError(await other.queryStatus(target.config.deviceId, 'cmd-1'), 404, 'not_found');
    const sites = SiteListSchema.parse((await other.listSites()).body).sites;
    expect(sites.map((site) => site.siteId)).not.toContain(target.config.siteId);
  });

  it("a token of one region is refused by the other region's API (401 invalid_token)", async (context) => {
    const other = target.requireSetting(
      context,
      target.otherRegionClient(),
      'CONTRACT_OTHER_BASE_URL, CONTRACT_OTHER_CLIENT_ID and CONTRACT_OTHER_CLIENT_SECRET',
    );
    other.accessToken = target.upstream.accessToken;
    expectError(await other.listSites(), 401, 'invalid_token');
  });
});

describe('spec 4 send batch command (our choice: the whole batch is refused on any bad device)', () => {
  const window = () => target.window(0, HOUR_MS);

  it('a batch naming an unknown device is refused with 404 and creates no command', async () => {
    const deviceId = target.config.deviceId;
    const historyBefore = await historyIds(target, deviceId);
    expectError(
      await target.upstream.submitBatch({
        devices: [deviceId, 'NO-SUCH-DEVICE-0'],
        command: { powerControl: CHARGE_3KW, ...window() },
      }),
      404,
      'not_found',
    );
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });

  it('a batch naming a device of an unbound site is refused with 403 and creates no command', async (context) => {
    const otherSiteId = target.requireSetting(
      context,
      target.config.otherSiteId,
      'CONTRACT_OTHER_SITE_ID',
    );
    const bound = SiteSchema.parse((await target.upstream.bindSite(otherSiteId)).body);
    await target.upstream.unbindSite(otherSiteId);
    const deviceId = target.config.deviceId;
    const historyBefore = await historyIds(target, deviceId);
    expectError(
      await target.upstream.submitBatch({
        devices: [deviceId, bound.devices[0]?.deviceId],
        command: { powerControl: CHARGE_3KW, ...window() },
      }),
      403,
      'site_not_bound',
    );
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });

  it('a batch with a value outside one device’s range is refused with 422 and creates no command', async () => {
    const deviceId = target.config.deviceId;
    const device = (await boundDevices(target)).find((d) => d.deviceId === deviceId);
    const max = device?.capabilities.targetBatteryPowerW?.max ?? 0;
    const historyBefore = await historyIds(target, deviceId);
    expectError(
      await target.upstream.submitBatch({
        devices: [deviceId],
        command: { powerControl: { targetBatteryPowerW: max + 1 }, ...window() },
      }),
      422,
      'capability_out_of_range',
    );
    expect(await historyIds(target, deviceId)).toEqual(historyBefore);
  });
});

describe('spec 4 cancel batch command', () => {
  it('cancelling a pending batch succeeds for every device', async (context) => {
    const secondDeviceId = target.requireSetting(
      context,
      target.config.secondDeviceId,
      'CONTRACT_SECOND_DEVICE_ID',
    );
    const devices = [target.config.deviceId, secondDeviceId];
    const batch = await submitBatch(target, devices, target.window(0, HOUR_MS));
    const response = await target.upstream.cancelBatch(batch.batchCommandId);
    expect(response.status).toBe(200);
    const { results } = BatchCancelResponseSchema.parse(response.body);
    expect(results.map((result) => result.deviceId).sort()).toEqual([...devices].sort());
    expect(results.every((result) => result.success && result.status === 'cancelled')).toBe(true);
    for (const { deviceId, id } of batch.commands)
      expect(await statusOf(target, deviceId, id)).toMatchObject({
        status: 'cancelled',
        cancelReason: 'manuallyCancel',
      });
  });

  it('cancelling a completed batch fails for every device with the conflict (not_cancellable)', async (context) => {
    const admin = target.requireAdmin(context, 'let a batch complete');
    const window = target.window(0, HOUR_MS);
    const batch = await submitBatch(target, [target.config.deviceId], window);
    await admin.setClock(window.endTime);
    const { results } = BatchCancelResponseSchema.parse(
      (await target.upstream.cancelBatch(batch.batchCommandId)).body,
    );
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ success: false, status: 'completed' });
    expect(results[0]?.error?.code).toBe('not_cancellable');
  });
});
