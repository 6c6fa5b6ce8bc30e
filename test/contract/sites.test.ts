import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import {
  boundDevices,
  CHARGE_3KW,
  expectError,
  expectInvalidRequest,
  HOUR_MS,
  statusOf,
} from './support/steps.ts';
import {
  BindingAnswerSchema,
  DeviceListSchema,
  DeviceSchema,
  OFFSET_TIME_ZONE_PATTERN,
  SiteListSchema,
  SiteSchema,
  SubmissionAnswerSchema,
} from '#sandbox/vendor/schemas.ts';

/**
 * Sites and devices (docs/upstream.md, Sites, Paging): binding and its 409, both unbind forms,
 * the paged lists with their filters, the details, and region isolation.
 */
const target = useContractTarget();

async function listedSiteIds(query: Record<string, string> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page += 1) {
    const response = await target.upstream.listSites({ ...query, page: String(page) });
    expect(response.status).toBe(200);
    const list = SiteListSchema.parse(response.body);
    ids.push(...list.sites.map((site) => site.id));
    if (list.sites.length === 0 || ids.length >= list.total) return ids;
  }
}

describe('binding (docs/upstream.md, Sites)', () => {
  it('bind answers 200 "onboarding success" with the site ID; binding it again answers the same', async () => {
    const siteId = target.config.siteId;
    expect((await target.upstream.unbindSite(siteId)).status).toBe(200);
    const first = await target.upstream.bindSite(siteId);
    expect(first.status).toBe(200);
    expect(BindingAnswerSchema.parse(first.body)).toMatchObject({
      message: 'onboarding success',
      siteId,
    });
    const again = await target.upstream.bindSite(siteId);
    expect(again.status).toBe(200);
    expect(BindingAnswerSchema.parse(again.body).siteId).toBe(siteId);
    expect(await listedSiteIds()).toContain(siteId);
  });

  it('binding an unknown site answers 404 NOT_FOUND', async () => {
    expectError(await target.upstream.bindSite('NO-SUCH-SITE-0'), 404, 'NOT_FOUND');
  });

  it('binding a site another partner client holds answers 409 SITE_ALREADY_BOUND and gives no access', async (context) => {
    const foreignSiteId = target.requireSetting(
      context,
      target.config.foreignSiteId,
      'CONTRACT_FOREIGN_SITE_ID',
    );
    expectError(await target.upstream.bindSite(foreignSiteId), 409, 'SITE_ALREADY_BOUND');
    expect(await listedSiteIds()).not.toContain(foreignSiteId);
    expectError(await target.upstream.getSite(foreignSiteId), 404, 'NOT_FOUND');
  });

  it('unbind in the vendor form answers 200 "offboarding success"; the site leaves the list, its devices answer 404; again 404', async () => {
    const siteId = target.config.siteId;
    const unbound = await target.upstream.unbindSite(siteId);
    expect(unbound.status).toBe(200);
    expect(BindingAnswerSchema.parse(unbound.body)).toMatchObject({
      message: 'offboarding success',
      siteId,
    });
    expect(await listedSiteIds()).not.toContain(siteId);
    expectError(await target.upstream.getDevice(target.config.deviceId), 404, 'NOT_FOUND');
    expectError(await target.upstream.unbindSite(siteId), 404, 'NOT_FOUND');
  });

  it('unbind in the spec form (DELETE /sites with a body) does the same (docs/upstream.md, Decisions)', async () => {
    const siteId = target.config.siteId;
    const unbound = await target.upstream.unbindSiteByBody(siteId);
    expect(unbound.status).toBe(200);
    expect(BindingAnswerSchema.parse(unbound.body)).toMatchObject({
      message: 'offboarding success',
      siteId,
    });
    expect(await listedSiteIds()).not.toContain(siteId);
    expectError(await target.upstream.unbindSiteByBody(siteId), 404, 'NOT_FOUND');
  });

  it('a valid token alone gives no access: a command of an unbound site answers 404 until the site is bound again', async () => {
    const deviceId = target.config.deviceId;
    const submitted = await target.upstream.submitCommand(deviceId, {
      powerControl: CHARGE_3KW,
      ...target.window(0, HOUR_MS),
    });
    expect(submitted.status).toBe(202);
    const { id } = SubmissionAnswerSchema.parse(submitted.body);
    target.track(deviceId, id);
    await target.upstream.unbindSite(target.config.siteId);
    expectError(await target.upstream.queryStatus(deviceId, id), 404, 'NOT_FOUND');
    expectError(await target.upstream.cancelCommand(deviceId, id), 404, 'NOT_FOUND');
    await target.upstream.bindSite(target.config.siteId);
    expect((await statusOf(target, deviceId, id)).status).toBe('received');
  });
});

describe('sites and devices (docs/upstream.md, Sites, Site clocks)', () => {
  it('the site list holds exactly the bound sites, each with its devices and an offset time zone', async () => {
    const listed = await listedSiteIds();
    expect(listed).toContain(target.config.siteId);
    if (target.config.otherSiteId) expect(listed).not.toContain(target.config.otherSiteId);
    const response = await target.upstream.getSite(target.config.siteId);
    expect(response.status).toBe(200);
    const site = SiteSchema.parse(response.body);
    expect(site.timezone).toMatch(OFFSET_TIME_ZONE_PATTERN);
    expect(site.devices?.map((device) => device.id)).toContain(target.config.deviceId);
  });

  it('includeDevices=false leaves the devices out of the list and of the details', async () => {
    const list = SiteListSchema.parse(
      (await target.upstream.listSites({ includeDevices: 'false' })).body,
    );
    expect(list.sites.every((site) => site.devices === undefined)).toBe(true);
    const site = SiteSchema.parse(
      (await target.upstream.getSite(target.config.siteId, { includeDevices: 'false' })).body,
    );
    expect(site.devices).toBeUndefined();
  });

  it('the device list flattens the devices of every bound site; a device states its power in kW', async () => {
    const devices = await boundDevices(target);
    const device = devices.find((candidate) => candidate.id === target.config.deviceId);
    expect(device?.siteId).toBe(target.config.siteId);
    expect(device?.maxChargePowerKw).toBeGreaterThan(0);
    expect(device?.maxDischargePowerKw).toBeGreaterThan(0);
    const details = await target.upstream.getDevice(target.config.deviceId);
    expect(details.status).toBe(200);
    expect(DeviceSchema.parse(details.body)).toEqual(device);
  });

  it("a client of the other region can neither bind this region's site nor reach its devices", async (context) => {
    const other = target.requireSetting(
      context,
      target.otherRegionClient(),
      'CONTRACT_OTHER_BASE_URL, CONTRACT_OTHER_CLIENT_ID and CONTRACT_OTHER_CLIENT_SECRET',
    );
    await other.signIn();
    expectError(await other.bindSite(target.config.siteId), 404, 'NOT_FOUND');
    expectError(await other.getDevice(target.config.deviceId), 404, 'NOT_FOUND');
    const sites = SiteListSchema.parse((await other.listSites()).body).sites;
    expect(sites.map((site) => site.id)).not.toContain(target.config.siteId);
  });
});

describe('paging and filters (docs/upstream.md, Paging)', () => {
  it('pages default to 20 items; page and size are echoed with the total', async () => {
    const list = SiteListSchema.parse((await target.upstream.listSites()).body);
    expect(list).toMatchObject({ page: 1, size: 20 });
    expect(list.total).toBeGreaterThanOrEqual(1);
  });

  it('size 1 walks the devices one page at a time; a page past the end is empty', async () => {
    const first = DeviceListSchema.parse(
      (await target.upstream.listDevices({ page: '1', size: '1' })).body,
    );
    expect(first.devices).toHaveLength(1);
    expect(first.total).toBeGreaterThanOrEqual(2);
    const second = DeviceListSchema.parse(
      (await target.upstream.listDevices({ page: '2', size: '1' })).body,
    );
    expect(second).toMatchObject({ page: 2, size: 1, total: first.total });
    expect(second.devices[0]?.id).not.toBe(first.devices[0]?.id);
    const past = DeviceListSchema.parse(
      (await target.upstream.listDevices({ page: String(first.total + 1), size: '1' })).body,
    );
    expect(past.devices).toEqual([]);
  });

  it('the filters keep only matching devices and sites', async () => {
    for (const [filter, value] of [
      ['online', true],
      ['faultStatus', false],
      ['gridConnected', true],
    ] as const) {
      const list = DeviceListSchema.parse(
        (await target.upstream.listDevices({ [filter]: String(value), size: '500' })).body,
      );
      expect(list.devices.every((device) => device[filter] === value)).toBe(true);
    }
    const online = SiteListSchema.parse(
      (await target.upstream.listSites({ online: 'true', size: '500' })).body,
    );
    expect(online.sites.every((site) => site.online)).toBe(true);
  });

  it('a device taken offline leaves the online filter and joins the offline one', async (context) => {
    const admin = target.requireAdmin(context, 'take a device offline');
    await admin.setDevice(target.config.deviceId, { online: false });
    const ids = async (online: string) =>
      DeviceListSchema.parse(
        (await target.upstream.listDevices({ online, size: '500' })).body,
      ).devices.map((device) => device.id);
    expect(await ids('true')).not.toContain(target.config.deviceId);
    expect(await ids('false')).toContain(target.config.deviceId);
  });

  it.each([
    [{ page: '0' }, 'page'],
    [{ size: '0' }, 'size'],
    [{ size: '501' }, 'size'],
    [{ online: 'maybe' }, 'online'],
  ])('paging and filter values outside the schema answer 400: %j', async (query, name) => {
    expectInvalidRequest(await target.upstream.listDevices(query), name);
  });

  it('size 500, the largest page, is allowed', async () => {
    expect((await target.upstream.listSites({ size: '500' })).status).toBe(200);
  });
});
