import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SiteListSchema, SiteSchema } from '../../domain/device.ts';
import { startHarness, type SandboxHarness } from './support/sandbox-harness.ts';

let sandbox: SandboxHarness;
let token: string;
beforeAll(async () => {
  sandbox = await startHarness();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await sandbox.admin('POST', '/reset');
  token = await sandbox.token('demo-eu');
});

const bind = (siteId: unknown, as = token) =>
  sandbox.call('POST', '/eu/sites', { token: as, json: { siteId } });
const unbind = (siteId: string) => sandbox.call('DELETE', '/eu/sites', { token, json: { siteId } });
const listed = async () =>
  SiteListSchema.parse((await sandbox.call('GET', '/eu/sites', { token })).body).sites;

describe('site binding (spec 2.7, 4, 5 rule 5)', () => {
  it('starts with no bound sites', async () => {
    expect(await listed()).toEqual([]);
  });

  it('binds with 201 and the site entry, then 200 with the same entry', async () => {
    const first = await bind('PLANT-EU-001');
    expect(first.status).toBe(201);
    const site = SiteSchema.parse(first.body);
    expect(site).toMatchObject({ siteId: 'PLANT-EU-001', timeZone: 'Europe/Berlin' });
    expect(site.name.length).toBeGreaterThan(0);
    expect(site.devices.map((device) => device.deviceId)).toEqual([
      'BAT-EU-001-A',
      'BAT-EU-001-B',
      'BAT-EU-001-C',
    ]);
    const again = await bind('PLANT-EU-001');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });

  it('serves the demo fixture exactly: capabilities, the lacking control, the offline device', async () => {
    await bind('PLANT-EU-002');
    await bind('PLANT-EU-001');
    await bind('PLANT-EU-100');
    const sites = await listed();
    expect(sites.map((site) => site.siteId)).toEqual([
      'PLANT-EU-002',
      'PLANT-EU-001',
      'PLANT-EU-100',
    ]);
    const devices = new Map(sites.flatMap((site) => site.devices).map((d) => [d.deviceId, d]));
    expect(devices.get('BAT-EU-001-A')?.capabilities).toEqual({
      targetBatteryPowerW: { min: -5000, max: 5000 },
      chargeCutoffSocPercent: { min: 50, max: 100 },
      dischargeCutoffSocPercent: { min: 0, max: 50 },
      siteImportLimitW: { min: 0, max: 20000 },
      siteExportLimitW: { min: 0, max: 20000 },
    });
    expect(devices.get('BAT-EU-001-C')?.capabilities.siteExportLimitW).toBeUndefined();
    expect(devices.get('BAT-EU-001-C')?.capabilities.siteImportLimitW).toBeDefined();
    expect(devices.get('BAT-EU-002-B')?.online).toBe(false);
    expect(devices.get('BAT-EU-002-A')?.online).toBe(true);
    expect(sites[2]?.devices).toHaveLength(60);
    expect(sites[2]?.devices[0]?.deviceId).toBe('BAT-EU-100-01');
    expect(sites[2]?.devices[59]?.deviceId).toBe('BAT-EU-100-60');
  });

  it('serves the Australian site in its own zone, to the Australian client only', async () => {
    const auToken = await sandbox.token('demo-au');
    const response = await sandbox.call('POST', '/au/sites', {
      token: auToken,
      json: { siteId: 'PLANT-AU-001' },
    });
    expect(SiteSchema.parse(response.body)).toMatchObject({ timeZone: 'Australia/Adelaide' });
    expect(await listed()).toEqual([]);
  });

  it('answers 404 not_found for an unknown site and for a site of the other region', async () => {
    for (const siteId of ['PLANT-X', 'PLANT-AU-001']) {
      const response = await bind(siteId);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'not_found' });
      expect((response.body as { message: string }).message).toContain(siteId);
    }
  });

  it('answers 400 naming siteId for a bad binding body', async () => {
    for (const body of [{ siteId: 'a/b' }, {}, { siteId: 'X', extra: 1 }]) {
      const response = await sandbox.call('POST', '/eu/sites', { token, json: body });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_request' });
    }
    const response = await bind('../x');
    expect((response.body as { message: string }).message).toContain('siteId');
  });

  it('unbinds with 204; the site leaves the list; unbinding again answers 404', async () => {
    await bind('PLANT-EU-001');
    expect((await unbind('PLANT-EU-001')).status).toBe(204);
    expect(await listed()).toEqual([]);
    const again = await unbind('PLANT-EU-001');
    expect(again).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('binds per client: another client of the region does not see the binding', async () => {
    await bind('PLANT-EU-001');
    const otherToken = await sandbox.token('demo-eu');
    // Same client ID, so the same bindings; a client of the other region sees none.
    expect((await sandbox.call('GET', '/eu/sites', { token: otherToken })).body).toMatchObject({
      sites: [{ siteId: 'PLANT-EU-001' }],
    });
    const auToken = await sandbox.token('demo-au');
    expect((await sandbox.call('GET', '/au/sites', { token: auToken })).body).toEqual({
      sites: [],
    });
  });
});
