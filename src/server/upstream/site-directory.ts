import type { Device, SiteList } from '../../domain/device.ts';
import { accountKey } from '../../domain/account.ts';
import type { UpstreamCaller } from './upstream-caller.ts';

/** Reads a caller's site list (the adapter's `sites`); `retry` as the client's. */
export type SiteListReader = (
  caller: UpstreamCaller,
  options: { retry: boolean },
) => Promise<SiteList>;

/** How long one client's site list is trusted before it is asked again. */
export const SITE_DIRECTORY_TTL_MS = 30_000;

/** The site and time zone of a set of devices, as far as the site list tells them. */
export interface DevicesSite {
  /** Set when every device belongs to this one site. */
  siteId?: string;
  /**
   * Set when every device's site is shown on this time zone (one site, or several in one zone):
   * an IANA name or a fixed offset, as the site list gives it.
   */
  timeZone?: string;
}

interface DeviceHome {
  siteId: string;
  timeZone: string;
}

interface Entry {
  list: Promise<{
    homes: Map<string, DeviceHome>;
    devicesBySite: Map<string, string[]>;
    devices: Map<string, Device>;
    sites: SiteList['sites'];
  }>;
  fetchedAtMs: number;
}

/**
 * Which bound site, and so which time zone, each device of a client belongs to, from the
 * product's site list (the adapter's `sites`, with each site's clock). Kept per region and client for
 * {@link SITE_DIRECTORY_TTL_MS} (sites hold the same devices; only binding changes the list, and
 * a bind or unbind through the BFF calls {@link forget}); concurrent lookups share one request; a
 * failed request is not kept, so the next lookup asks again.
 */
export class SiteDirectory {
  readonly #entries = new Map<string, Entry>();
  readonly #fetch: SiteListReader;
  readonly #now: () => number;
  readonly #ttlMs: number;

  /**
   * @param fetch reads the caller's site list (the upstream's `GET /sites`, validated).
   * @param now clock, epoch ms.
   */
  constructor(fetch: SiteListReader, now: () => number, ttlMs = SITE_DIRECTORY_TTL_MS) {
    this.#fetch = fetch;
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  /**
   * The site of `deviceIds` and their shared time zone. A device missing from the list (its site
   * is not bound, or unknown) makes both unknown. The list is read once, without retries: a
   * missing site is a lesser harm than more calls to a failing upstream.
   *
   * @throws whatever reading the site list throws (ProblemError for upstream failures).
   */
  async siteOf(caller: UpstreamCaller, deviceIds: readonly string[]): Promise<DevicesSite> {
    if (deviceIds.length === 0) return {};
    const { homes } = await this.#list(caller, false);
    const found = deviceIds.map((deviceId) => homes.get(deviceId));
    if (found.some((home) => home === undefined)) return {};
    const siteIds = new Set(found.map((home) => home?.siteId));
    const zones = new Set(found.map((home) => home?.timeZone));
    const [siteId] = siteIds;
    const [timeZone] = zones;
    return {
      ...(siteIds.size === 1 && siteId ? { siteId } : {}),
      ...(zones.size === 1 && timeZone ? { timeZone } : {}),
    };
  }

  /**
   * The devices of the caller's bound site `siteId`; empty when it is not bound.
   *
   * @throws whatever reading the site list throws.
   */
  async devicesOf(caller: UpstreamCaller, siteId: string): Promise<string[]> {
    return (await this.#list(caller, true)).devicesBySite.get(siteId) ?? [];
  }

  /**
   * The devices of `deviceIds` found in the caller's bound sites (their capability ranges word a
   * refusal), read once without retries.
   *
   * @throws whatever reading the site list throws.
   */
  async devices(
    caller: UpstreamCaller,
    deviceIds: readonly string[],
  ): Promise<Map<string, Device>> {
    const { devices } = await this.#list(caller, false);
    const found = new Map<string, Device>();
    for (const deviceId of deviceIds) {
      const device = devices.get(deviceId);
      if (device) found.set(deviceId, device);
    }
    return found;
  }

  /**
   * The caller's bound sites with their devices, as last read (kept {@link SITE_DIRECTORY_TTL_MS}):
   * one upstream call per client per interval whatever the number of views (the overview's
   * offline and faulted sites and devices, its device names and site clocks).
   *
   * @throws whatever reading the site list throws.
   */
  async siteList(caller: UpstreamCaller): Promise<SiteList['sites']> {
    return (await this.#list(caller, true)).sites;
  }

  /** Drops the caller's kept list (after a bind or unbind): the next lookup asks again. */
  forget(caller: UpstreamCaller): void {
    this.#entries.delete(accountKey(caller));
  }

  #list(caller: UpstreamCaller, retry: boolean): Entry['list'] {
    const key = accountKey(caller);
    const nowMs = this.#now();
    const kept = this.#entries.get(key);
    if (kept && nowMs - kept.fetchedAtMs < this.#ttlMs) return kept.list;
    if (this.#entries.size >= 10_000) this.#entries.clear();
    const entry: Entry = { list: this.#fetch(caller, { retry }).then(index), fetchedAtMs: nowMs };
    this.#entries.set(key, entry);
    entry.list.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return entry.list;
  }
}

function index(list: SiteList): Awaited<Entry['list']> {
  const homes = new Map<string, DeviceHome>();
  const devicesBySite = new Map<string, string[]>();
  const devices = new Map<string, Device>();
  for (const site of list.sites) {
    devicesBySite.set(
      site.siteId,
      site.devices.map((device) => device.deviceId),
    );
    for (const device of site.devices) {
      homes.set(device.deviceId, { siteId: site.siteId, timeZone: site.timeZone });
      devices.set(device.deviceId, device);
    }
  }
  return { homes, devicesBySite, devices, sites: list.sites };
}
