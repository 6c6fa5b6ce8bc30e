import type { Device, Site } from '#domain/device.ts';

export type DeviceLookup =
  | { found: true; site: Site; device: Device }
  | { found: false; reason: 'siteNotBound' | 'deviceNotInSite'; site?: Site };

/** Finds a device of a bound site in the site list; says which part is missing when it is not. */
export function findDevice(sites: readonly Site[], siteId: string, deviceId: string): DeviceLookup {
  const site = sites.find((s) => s.siteId === siteId);
  if (!site) return { found: false, reason: 'siteNotBound' };
  const device = site.devices.find((d) => d.deviceId === deviceId);
  if (!device) return { found: false, reason: 'deviceNotInSite', site };
  return { found: true, site, device };
}
