import type { Device, Site } from '#domain/device.ts';

export interface SiteDevice {
  device: Device;
  site: Site;
}

export function indexDevices(sites: readonly Site[]): Map<string, SiteDevice> {
  const index = new Map<string, SiteDevice>();
  for (const site of sites)
    for (const device of site.devices) index.set(device.deviceId, { device, site });
  return index;
}

/** Devices of `siteId` (all when empty) whose ID, name or model holds `search`, case-insensitive. */
export function filterDevices(
  devices: Iterable<SiteDevice>,
  search: string,
  siteId: string,
): SiteDevice[] {
  const needle = search.trim().toLowerCase();
  return [...devices].filter(
    ({ device, site }) =>
      (siteId === '' || site.siteId === siteId) &&
      (needle === '' ||
        device.deviceId.toLowerCase().includes(needle) ||
        device.name.toLowerCase().includes(needle) ||
        device.model.toLowerCase().includes(needle)),
  );
}

/** The clock the batch window is typed on: the selected devices' shared zone, else UTC. */
export function batchTimeZone(selected: readonly SiteDevice[]): {
  timeZone: string;
  mixed: boolean;
} {
  const zones = new Set(selected.map((s) => s.site.timeZone));
  const [only] = zones;
  if (zones.size === 1 && only) return { timeZone: only, mixed: false };
  return { timeZone: 'UTC', mixed: zones.size > 1 };
}
