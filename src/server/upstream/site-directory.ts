import type { Device, SiteList } from '#domain/device.ts';
import { accountKey } from '#domain/account.ts';
import { ProblemError } from '../http/problem.ts';
import type { UpstreamCaller } from './upstream-caller.ts';

export type SiteListReader = (
  caller: UpstreamCaller,
  options: { retry: boolean },
) => Promise<SiteList>;

export const SITE_DIRECTORY_TTL_MS = 30_000;

export interface DevicesSite {
  siteId?: string;
  /** Set when every device's site is shown on this time zone (IANA name or fixed offset). */
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
 * Which bound site and time zone each device belongs to, kept per region and client for
 * {@link SITE_DIRECTORY_TTL_MS} (only binding changes the list, and a bind calls {@link forget});
 * concurrent lookups share one request; a failure is not kept.
 */
export class SiteDirectory {
  readonly #entries = new Map<string, Entry>();
  readonly #fetch: SiteListReader;
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(fetch: SiteListReader, now: () => number, ttlMs = SITE_DIRECTORY_TTL_MS) {
    this.#fetch = fetch;
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  /**
   * A device missing from the list makes both unknown. Read without retries: a missing site is a
   * lesser harm than more calls to a failing upstream.
   *
   * @throws whatever reading the site list throws.
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

  /** Empty when `siteId` is not bound. @throws whatever reading the site list throws. */
  async devicesOf(caller: UpstreamCaller, siteId: string): Promise<string[]> {
    return (await this.#list(caller, true)).devicesBySite.get(siteId) ?? [];
  }

  /** Read once without retries. @throws whatever reading the site list throws. */
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

  /** One upstream call per client per TTL whatever the number of views. @throws as above. */
  async siteList(caller: UpstreamCaller): Promise<SiteList['sites']> {
    return (await this.#list(caller, true)).sites;
  }

  /**
   * Refuses `siteIds` that are not bound to the caller's account, naming them: a token or a
   * webhook limited to such a site would reach nothing (docs/security.md, API tokens).
   *
   * @param what what is being limited, in words ("the token", "the webhook").
   * @throws ProblemError 404 `unknown_or_unbound`; whatever reading the site list throws.
   */
  async refuseUnbound(
    caller: UpstreamCaller,
    siteIds: readonly string[],
    what: string,
  ): Promise<void> {
    if (siteIds.length === 0) return;
    const { devicesBySite } = await this.#list(caller, true);
    const unbound = siteIds.filter((siteId) => !devicesBySite.has(siteId));
    if (unbound.length === 0) return;
    const one = unbound.length === 1;
    throw new ProblemError(
      404,
      'unknown_or_unbound',
      `${unbound.join(', ')} ${one ? 'is not a site' : 'are not sites'} bound to this account. Bind ${one ? 'it' : 'them'} first on the sites page, or leave ${one ? 'it' : 'them'} out of ${what}.`,
    );
  }

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
