import { beforeEach, describe, expect, it } from 'vitest';
import {
  BindingAnswerSchema,
  DeviceListSchema,
  DeviceSchema,
  ErrorBodySchema,
  SiteListSchema,
  SiteSchema,
} from '../vendor/schemas.ts';
import { AU, EU, useSandboxHarness, WALL_MS } from './support/sandbox-harness.ts';

const sandbox = useSandboxHarness();
let token: string;
beforeEach(async () => {
  token = await sandbox.token('demo-eu');
});

const bind = (siteId: unknown, as = token) =>
  sandbox.call('POST', `${EU}/sites`, { token: as, json: { siteId } });
const get = (path: string, query: Record<string, string> = {}) =>
  sandbox.call('GET', `${EU}${path}?${new URLSearchParams(query).toString()}`, { token });
const listed = async (query: Record<string, string> = {}) =>
  SiteListSchema.parse((await get('/sites', query)).body);
const devices = async (query: Record<string, string> = {}) =>
  DeviceListSchema.parse((await get('/devices', query)).body);
const errorCode = (body: unknown) => ErrorBodySchema.parse(body).errorCode;

describe('site binding (docs/upstream.md, Sites)', () => {
  it('starts with no bound sites: an empty first page', async () => {
    expect(await listed()).toEqual({ total: 0, page: 1, size: 20, sites: [] });
  });

  it('binds with 200 "onboarding success"; binding its own site again answers the same', async () => {
    const first = await bind('PLANT-EU-001');
    expect(first.status).toBe(200);
    expect(BindingAnswerSchema.parse(first.body)).toEqual({
      message: 'onboarding success',
      siteId: 'PLANT-EU-001',
      timestamp: new Date(WALL_MS).toISOString(),
    });
    const again = await bind('PLANT-EU-001');
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect((await listed()).sites.map((site) => site.id)).toEqual(['PLANT-EU-001']);
  });

  it('answers 409 SITE_ALREADY_BOUND for the site another partner holds, and lists nothing', async () => {
    const response = await bind('PLANT-EU-003');
    expect(response.status).toBe(409);
    expect(errorCode(response.body)).toBe('SITE_ALREADY_BOUND');
    expect((await listed()).total).toBe(0);
    expect((await get('/sites/PLANT-EU-003')).status).toBe(404);
    expect((await get('/devices/BAT-EU-003-A')).status).toBe(404);
  });

  it('answers 404 NOT_FOUND for an unknown site and for a site of the other region', async () => {
    for (const siteId of ['PLANT-X', 'PLANT-AU-001']) {
      const response = await bind(siteId);
      expect(response.status).toBe(404);
      const body = ErrorBodySchema.parse(response.body);
      expect(body).toMatchObject({ errorCode: 'NOT_FOUND', timestamp: expect.any(String) });
      expect(body.message).toContain(siteId);
    }
  });

  it('answers 400 INVALID_REQUEST naming siteId for a bad binding body', async () => {
    for (const body of [{ siteId: 'a/b' }, {}, { siteId: 'X', extra: 1 }]) {
      const response = await sandbox.call('POST', `${EU}/sites`, { token, json: body });
      expect(response.status).toBe(400);
      expect(errorCode(response.body)).toBe('INVALID_REQUEST');
    }
    expect(ErrorBodySchema.parse((await bind('../x')).body).message).toContain('siteId');
  });

  const unbindForms: [string, (siteId: string) => { url: string; json?: unknown }][] = [
    ['the vendor form DELETE /sites/{siteId}', (siteId) => ({ url: `${EU}/sites/${siteId}` })],
    [
      'the spec form DELETE /sites with a body',
      (siteId) => ({ url: `${EU}/sites`, json: { siteId } }),
    ],
  ];

  it.each(unbindForms)(
    'unbinds with %s: 200 "offboarding success", the site leaves the list, again 404',
    async (_form, request) => {
      const unbind = () => {
        const { url, json } = request('PLANT-EU-001');
        return sandbox.call('DELETE', url, { token, json });
      };
      await bind('PLANT-EU-001');
      const first = await unbind();
      expect(first.status).toBe(200);
      expect(BindingAnswerSchema.parse(first.body)).toMatchObject({
        message: 'offboarding success',
        siteId: 'PLANT-EU-001',
      });
      expect((await listed()).sites).toEqual([]);
      const again = await unbind();
      expect(again.status).toBe(404);
      expect(errorCode(again.body)).toBe('NOT_FOUND');
    },
  );

  it('does not unbind the site another partner holds (404: not yours)', async () => {
    const response = await sandbox.call('DELETE', `${EU}/sites/PLANT-EU-003`, { token });
    expect(response.status).toBe(404);
    expect((await bind('PLANT-EU-003')).status).toBe(409);
  });

  it('binds per client: a client of the other region sees none of it', async () => {
    await bind('PLANT-EU-001');
    const again = await sandbox.token('demo-eu');
    const sameClient = await sandbox.call('GET', `${EU}/sites`, { token: again });
    expect(SiteListSchema.parse(sameClient.body).sites.map((site) => site.id)).toEqual([
      'PLANT-EU-001',
    ]);
    const auToken = await sandbox.token('demo-au');
    const au = await sandbox.call('GET', `${AU}/sites`, { token: auToken });
    expect(SiteListSchema.parse(au.body).total).toBe(0);
  });
});

describe('the site and device answers (docs/upstream.md, Sites, Site clocks)', () => {
  it('gives a site the vendor fields, kW totals over its devices, an offset time zone', async () => {
    await bind('PLANT-EU-001');
    const response = await get('/sites/PLANT-EU-001');
    expect(response.status).toBe(200);
    const site = SiteSchema.parse(response.body);
    expect(site).toMatchObject({
      id: 'PLANT-EU-001',
      name: 'Berlin Logistics Hub',
      countryCode: 'DE',
      timezone: 'UTC+1:00',
      gridConnectionPhaseType: 'threePhase',
      totalMaxChargePowerKw: 15,
      totalMaxDischargePowerKw: 15,
      totalBatteryCapacityKwh: 27.5,
      online: true,
      faultStatus: false,
    });
    expect(site.devices?.map((device) => device.id)).toEqual([
      'BAT-EU-001-A',
      'BAT-EU-001-B',
      'BAT-EU-001-C',
    ]);
    expect(Object.keys(site).sort()).toEqual(Object.keys(SiteSchema.shape).sort());
  });

  it('gives every demo device 5 kW each way, so targetBatteryPowerW may be -5000..5000', async () => {
    for (const siteId of ['PLANT-EU-001', 'PLANT-EU-002', 'PLANT-EU-100']) await bind(siteId);
    const all = await devices({ size: '500' });
    expect(all.total).toBe(65);
    for (const device of all.devices) {
      expect(device.maxChargePowerKw).toBe(5);
      expect(device.maxDischargePowerKw).toBe(5);
      expect(Object.keys(device).sort()).toEqual(Object.keys(DeviceSchema.shape).sort());
    }
    const byId = new Map(all.devices.map((device) => [device.id, device]));
    expect(byId.get('BAT-EU-002-B')?.online).toBe(false);
    expect(byId.get('BAT-EU-001-C')).toMatchObject({
      gridConnected: false,
      phaseType: 'singlePhase',
    });
  });

  it('serves both Australian sites on their offsets to the Australian client only', async () => {
    const auToken = await sandbox.token('demo-au');
    for (const siteId of ['PLANT-AU-001', 'PLANT-AU-002'])
      await sandbox.call('POST', `${AU}/sites`, { token: auToken, json: { siteId } });
    const response = await sandbox.call('GET', `${AU}/sites`, { token: auToken });
    const { sites } = SiteListSchema.parse(response.body);
    expect(sites.map((site) => [site.id, site.name, site.countryCode, site.timezone])).toEqual([
      ['PLANT-AU-001', 'Adelaide Depot', 'AU', 'UTC+9:30'],
      ['PLANT-AU-002', 'Brisbane Wharf Store', 'AU', 'UTC+10:00'],
    ]);
  });

  it('shows a device taken offline or faulted through the admin API, and the site with it', async () => {
    await bind('PLANT-EU-002');
    await sandbox.admin('PUT', '/devices/BAT-EU-002-A', { fault: true });
    const device = DeviceSchema.parse((await get('/devices/BAT-EU-002-A')).body);
    expect(device).toMatchObject({ online: true, faultStatus: true });
    const site = SiteSchema.parse((await get('/sites/PLANT-EU-002')).body);
    expect(site).toMatchObject({ online: true, faultStatus: true });
    await sandbox.admin('PUT', '/devices/BAT-EU-002-A', { online: false, fault: false });
    expect(SiteSchema.parse((await get('/sites/PLANT-EU-002')).body)).toMatchObject({
      online: false,
      faultStatus: false,
    });
  });

  it('answers 404 for the details of a site or device not found or not bound (same words)', async () => {
    await bind('PLANT-EU-001');
    const notBound = await get('/devices/BAT-EU-002-A');
    const unknown = await get('/devices/BAT-NOPE-1');
    expect([notBound.status, unknown.status]).toEqual([404, 404]);
    const words = (body: unknown, id: string) =>
      ErrorBodySchema.parse(body).message.replace(id, '<id>');
    expect(words(notBound.body, 'BAT-EU-002-A')).toBe(words(unknown.body, 'BAT-NOPE-1'));
    expect((await get('/sites/PLANT-EU-002')).status).toBe(404);
    expect((await get('/sites/PLANT-AU-001')).status).toBe(404);
  });
});

describe('paging and filters (docs/upstream.md, Paging)', () => {
  beforeEach(async () => {
    for (const siteId of ['PLANT-EU-002', 'PLANT-EU-001', 'PLANT-EU-100']) await bind(siteId);
  });

  it('lists sites in bind order, 20 a page by default, with total, page and size', async () => {
    const first = await listed();
    expect(first).toMatchObject({ total: 3, page: 1, size: 20 });
    expect(first.sites.map((site) => site.id)).toEqual([
      'PLANT-EU-002',
      'PLANT-EU-001',
      'PLANT-EU-100',
    ]);
    const second = await listed({ page: '2', size: '2' });
    expect(second).toMatchObject({ total: 3, page: 2, size: 2 });
    expect(second.sites.map((site) => site.id)).toEqual(['PLANT-EU-100']);
    expect((await listed({ page: '3', size: '2' })).sites).toEqual([]);
  });

  it('leaves the devices out with includeDevices=false and filters by online and faultStatus', async () => {
    const bare = await listed({ includeDevices: 'false' });
    expect(bare.sites.every((site) => site.devices === undefined)).toBe(true);
    const bareSite = SiteSchema.parse(
      (await get('/sites/PLANT-EU-001', { includeDevices: 'false' })).body,
    );
    expect(bareSite.devices).toBeUndefined();
    await sandbox.admin('PUT', '/devices/BAT-EU-002-A', { online: false });
    expect((await listed({ online: 'false' })).sites.map((site) => site.id)).toEqual([
      'PLANT-EU-002',
    ]);
    await sandbox.admin('PUT', '/devices/BAT-EU-100-07', { fault: true });
    expect((await listed({ faultStatus: 'true' })).sites.map((site) => site.id)).toEqual([
      'PLANT-EU-100',
    ]);
    expect((await listed({ faultStatus: 'false', online: 'true' })).total).toBe(1);
  });

  it('lists the devices of every bound site flattened, paged, filtered', async () => {
    const first = await devices();
    expect(first).toMatchObject({ total: 65, page: 1, size: 20 });
    expect(first.devices.slice(0, 3).map((device) => device.id)).toEqual([
      'BAT-EU-002-A',
      'BAT-EU-002-B',
      'BAT-EU-001-A',
    ]);
    const last = await devices({ page: '4', size: '20' });
    expect(last.devices.map((device) => device.id)).toEqual([
      'BAT-EU-100-56',
      'BAT-EU-100-57',
      'BAT-EU-100-58',
      'BAT-EU-100-59',
      'BAT-EU-100-60',
    ]);
    expect((await devices({ online: 'false' })).devices.map((device) => device.id)).toEqual([
      'BAT-EU-002-B',
    ]);
    expect((await devices({ gridConnected: 'false' })).devices.map((device) => device.id)).toEqual([
      'BAT-EU-001-C',
    ]);
    await sandbox.admin('PUT', '/devices/BAT-EU-001-B', { fault: true });
    expect((await devices({ faultStatus: 'true' })).devices.map((device) => device.id)).toEqual([
      'BAT-EU-001-B',
    ]);
  });

  it.each([
    ['/sites', { page: '0' }, 'page'],
    ['/sites', { size: '501' }, 'size'],
    ['/sites', { size: 'ten' }, 'size'],
    ['/sites', { online: 'yes' }, 'online'],
    ['/sites', { includeDevices: '1' }, 'includeDevices'],
    ['/sites', { sort: 'name' }, 'sort'],
    ['/devices', { gridConnected: 'maybe' }, 'gridConnected'],
    ['/devices', { page: '-1' }, 'page'],
  ])('answers 400 naming the parameter for %s %j', async (path, query, name) => {
    const response = await get(path, query);
    expect(response.status).toBe(400);
    const body = ErrorBodySchema.parse(response.body);
    expect(body.errorCode).toBe('INVALID_REQUEST');
    expect(body.message).toContain(name);
  });

  it('allows size 500, the largest page', async () => {
    expect((await devices({ size: '500' })).devices).toHaveLength(65);
  });
});
