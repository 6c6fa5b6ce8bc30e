import type { Device, Site } from '../../../../domain/device.ts';

/** A device with the site it belongs to. */
export interface SiteDevice {
  device: Device;
  site: Site;
}

/** Every device of the bound sites by ID, in site then device order. */
export function indexDevices(sites: readonly Site[]): Map<string, SiteDevice> {
  const index = new Map<string, SiteDevice>();
  for (const site of sites)
    for (const device of site.devices) index.set(device.deviceId, { device, site });
  return index;
}

/**
 * The devices a search shows: of the site `siteId` (all sites when empty) whose ID, name or model
 * holds `search` (case-insensitive, surrounding spaces ignored).
 */
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

/**
 * The clock the batch window is typed on: the selected devices' site zone when they share one,
 * else UTC (a batch across zones has no single local clock).
 */
export function batchTimeZone(selected: readonly SiteDevice[]): {
  timeZone: string;
  mixed: boolean;
} {
  const zones = new Set(selected.map((s) => s.site.timeZone));
  const [only] = zones;
  if (zones.size === 1 && only) return { timeZone: only, mixed: false };
  return { timeZone: 'UTC', mixed: zones.size > 1 };
}
