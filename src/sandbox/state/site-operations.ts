import type { FixtureDevice, FixtureSite } from '../fixtures/fixture-types.ts';
import { SandboxError, notFoundOrNotYours } from '../sandbox-error.ts';
import type {
  Device,
  DeviceList,
  DeviceListQuery,
  Site,
  SiteList,
  SiteListQuery,
} from '../vendor/schemas.ts';
import type { ClientIdentity } from './client-identity.ts';
import { accessibleDevice, accessibleSite } from './device-access.ts';
import type { DeviceConditions } from './device-conditions.ts';
import type { StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';

/** The page of `items` the query asks for, with the list's total. */
function pageOf<T>(
  items: T[],
  { page, size }: { page: number; size: number },
): { total: number; page: number; size: number; items: T[] } {
  const from = (page - 1) * size;
  return { total: items.length, page, size, items: items.slice(from, from + size) };
}

/** The filters the site and device lists share: an absent one lets every item through. */
function passesConditionFilters(
  item: Pick<Site, 'online' | 'faultStatus'>,
  query: Pick<SiteListQuery, 'online' | 'faultStatus'>,
): boolean {
  return (
    (query.online === undefined || item.online === query.online) &&
    (query.faultStatus === undefined || item.faultStatus === query.faultStatus)
  );
}

function boundSites(memory: StateMemory, client: ClientIdentity): FixtureSite[] {
  return memory.bindings
    .siteIdsInBindOrder(client.clientId)
    .map((siteId) => memory.catalog.site(siteId, client.region))
    .filter((site): site is FixtureSite => site !== undefined);
}

export function listSites(
  memory: StateMemory,
  client: ClientIdentity,
  query: SiteListQuery,
): SiteList {
  const sites = boundSites(memory, client)
    .map((site) => toVendorSite(site, memory.conditions, query.includeDevices))
    .filter((site) => passesConditionFilters(site, query));
  const { items, ...page } = pageOf(sites, query);
  return { ...page, sites: items };
}

/** @throws SandboxError 404 for a site not found or not bound to the client. */
export function siteDetails(
  memory: StateMemory,
  client: ClientIdentity,
  siteId: string,
  includeDevices: boolean,
): Site {
  const site = accessibleSite(memory.catalog, memory.bindings, client, siteId);
  return toVendorSite(site, memory.conditions, includeDevices);
}

export function listDevices(
  memory: StateMemory,
  client: ClientIdentity,
  query: DeviceListQuery,
): DeviceList {
  const devices = boundSites(memory, client)
    .flatMap((site) => site.devices.map((device) => toVendorDevice(device, memory.conditions)))
    .filter(
      (device) =>
        passesConditionFilters(device, query) &&
        (query.gridConnected === undefined || device.gridConnected === query.gridConnected),
    );
  const { items, ...page } = pageOf(devices, query);
  return { ...page, devices: items };
}

/** @throws SandboxError 404 for a device not found or not yours. */
export function deviceDetails(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
): Device {
  const device = accessibleDevice(memory.catalog, memory.bindings, client, deviceId);
  return toVendorDevice(device, memory.conditions);
}

/** Binding again succeeds. @throws SandboxError 404 unknown in region, 409 held by another. */
export function bindSite(
  memory: StateMemory,
  client: ClientIdentity,
  siteId: string,
  change: StateChange,
): void {
  const site = memory.catalog.site(siteId, client.region);
  if (!site)
    throw new SandboxError(
      'NOT_FOUND',
      `Site ${siteId} is not found in this region; check the Plant ID in the vendor's app`,
    );
  const holder = memory.bindings.holderOf(siteId);
  if (holder !== undefined && holder !== client.clientId)
    throw new SandboxError(
      'SITE_ALREADY_BOUND',
      `Site ${siteId} is already bound to another partner account; a site is bound to one partner at a time, so its owner must have it released first`,
    );
  const binding = memory.bindings.bind(client.clientId, siteId);
  if (binding) change.bindings.push(binding);
}

/** @throws SandboxError 404 when the site is not bound to the client. */
export function unbindSite(
  memory: StateMemory,
  client: ClientIdentity,
  siteId: string,
  change: StateChange,
): void {
  if (!memory.bindings.unbind(client.clientId, siteId)) throw notFoundOrNotYours(`Site ${siteId}`);
  change.unbindings.push({ clientId: client.clientId, siteId });
}

function toVendorDevice(device: FixtureDevice, conditions: DeviceConditions): Device {
  const condition = conditions.of(device);
  return {
    id: device.deviceId,
    siteId: device.siteId,
    name: device.name,
    phaseType: device.phaseType,
    model: device.model,
    serialNumber: device.serialNumber,
    ratedPowerKw: device.ratedPowerKw,
    maxReactivePowerKvar: device.maxReactivePowerKvar,
    pvCapacityKw: device.pvCapacityKw,
    batteryCapacityKwh: device.batteryCapacityKwh,
    maxChargePowerKw: device.maxChargePowerKw,
    maxDischargePowerKw: device.maxDischargePowerKw,
    installDate: device.installDate,
    online: condition.online,
    faultStatus: condition.fault,
    gridConnected: device.gridConnected,
  };
}

const sum = (devices: Device[], field: keyof Device) =>
  Math.round(devices.reduce((total, device) => total + Number(device[field]), 0) * 1000) / 1000;

/** Online while any device is online, faulted while any device is faulted. */
function toVendorSite(
  site: FixtureSite,
  conditions: DeviceConditions,
  includeDevices: boolean,
): Site {
  const devices = site.devices.map((device) => toVendorDevice(device, conditions));
  const vendorSite: Site = {
    id: site.siteId,
    name: site.name,
    countryCode: site.countryCode,
    address: site.address,
    timezone: site.timezone,
    installDate: site.installDate,
    gridMeterId: site.gridMeterId,
    gridConnectionPhaseType: site.gridConnectionPhaseType,
    gridCode: site.gridCode,
    owner: site.owner,
    totalPvCapacityKw: sum(devices, 'pvCapacityKw'),
    totalBatteryCapacityKwh: sum(devices, 'batteryCapacityKwh'),
    totalRatedPowerKw: sum(devices, 'ratedPowerKw'),
    totalMaxChargePowerKw: sum(devices, 'maxChargePowerKw'),
    totalMaxDischargePowerKw: sum(devices, 'maxDischargePowerKw'),
    totalMaxReactivePowerKvar: sum(devices, 'maxReactivePowerKvar'),
    online: devices.some((device) => device.online),
    faultStatus: devices.some((device) => device.faultStatus),
  };
  if (includeDevices) vendorSite.devices = devices;
  return vendorSite;
}
