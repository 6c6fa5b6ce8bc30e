import type { Device, Site } from '#domain/device.ts';

/** What the operator picked on the form, before the BFF resolves it. */
export interface FleetPick {
  siteIds: ReadonlySet<string>;
  models: ReadonlySet<string>;
  pasted: string;
}

export interface PickedDevice {
  device: Device;
  site: Site;
}

/** The IDs of a pasted list: split on commas, semicolons, white space; empty parts dropped. */
export function pastedDeviceIds(pasted: string): string[] {
  return [...new Set(pasted.split(/[\s,;]+/).filter((id) => id.length > 0))];
}

/** Every model among the bound sites' devices, sorted, with how many devices have it. */
export function modelsOf(sites: readonly Site[]): { model: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const site of sites)
    for (const device of site.devices)
      counts.set(device.model, (counts.get(device.model) ?? 0) + 1);
  return [...counts]
    .map(([model, count]) => ({ model, count }))
    .sort((a, b) => a.model.localeCompare(b.model));
}

/** The devices a pick names as the BFF resolves it (docs/fleet-dispatch.md, BFF surface); `unknown`: pasted IDs no bound site holds. */
export function resolvePick(
  sites: readonly Site[],
  pick: FleetPick,
): { devices: PickedDevice[]; unknown: string[] } {
  const byId = new Map<string, PickedDevice>();
  for (const site of sites)
    for (const device of site.devices) byId.set(device.deviceId, { device, site });
  const chosen = new Map<string, PickedDevice>();
  for (const site of sites)
    if (pick.siteIds.has(site.siteId))
      for (const device of site.devices) chosen.set(device.deviceId, { device, site });
  for (const site of sites)
    for (const device of site.devices)
      if (pick.models.has(device.model)) chosen.set(device.deviceId, { device, site });
  const unknown: string[] = [];
  for (const id of pastedDeviceIds(pick.pasted)) {
    const found = byId.get(id);
    if (found) chosen.set(id, found);
    else unknown.push(id);
  }
  return { devices: [...chosen.values()], unknown };
}

/** The one time zone of the picked devices' sites, or undefined when they span several. */
export function sharedTimeZone(devices: readonly PickedDevice[]): string | undefined {
  const zones = new Set(devices.map(({ site }) => site.timeZone));
  return zones.size === 1 ? [...zones][0] : undefined;
}

/** Picked devices offline (command may end `startTimeExpire`) or faulted (may end `deviceFault`), as the pre-check flags them. */
export function devicesAtRisk(devices: readonly PickedDevice[]): {
  offline: string[];
  faulted: string[];
} {
  return {
    offline: devices.filter(({ device }) => device.online === false).map((d) => d.device.deviceId),
    faulted: devices.filter(({ device }) => device.faulted === true).map((d) => d.device.deviceId),
  };
}
