/**
 * A household's load and its PV by the site's local time of day (src/sandbox/README.md, Telemetry
 * model): pure functions of a seed and an instant, so the same seed gives the same watts on every
 * machine and a sample can be computed for any instant without stepping through the ones before.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** FNV-1a of a text: the seed of a device or a site. */
export function seedOf(text: string): number {
  let state = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) state = Math.imul(state ^ text.charCodeAt(i), 16777619);
  return state >>> 0;
}

/** A number in [0, 1) from a seed and an index (a minute, a day): a stateless integer hash. */
export function unitHash(seed: number, index: number): number {
  let h = Math.imul(seed ^ Math.imul(index | 0, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h ^ Math.floor(index / 4294967296), 0x27d4eb2f);
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}

/** What a household is, drawn once from its device's seed. Watts. */
export interface HouseholdProfile {
  seed: number;
  /** Seed of the site: the weather is the site's, shared by its devices. */
  siteSeed: number;
  /** Minutes east of UTC (`UTC+1:00` is 60). */
  utcOffsetMinutes: number;
  baseLoadW: number;
  morningPeakW: number;
  eveningPeakW: number;
  pvCapacityW: number;
}

/** A household drawn from the device's and site's IDs. */
export function householdProfile(options: {
  deviceId: string;
  siteId: string;
  utcOffsetMinutes: number;
  pvCapacityKw: number;
}): HouseholdProfile {
  const seed = seedOf(options.deviceId);
  return {
    seed,
    siteSeed: seedOf(options.siteId),
    utcOffsetMinutes: options.utcOffsetMinutes,
    baseLoadW: 250 + Math.round(unitHash(seed, -1) * 350),
    morningPeakW: 500 + Math.round(unitHash(seed, -2) * 1000),
    eveningPeakW: 1000 + Math.round(unitHash(seed, -3) * 1500),
    pvCapacityW: Math.round(options.pvCapacityKw * 1000),
  };
}

const bump = (hour: number, centre: number, width: number) =>
  Math.exp(-(((hour - centre) / width) ** 2));

/** Local hour of day (0..24) and local day number at an instant. */
export function localTime(
  atMs: number,
  utcOffsetMinutes: number,
): { hour: number; localDay: number } {
  const localMs = atMs + utcOffsetMinutes * MINUTE_MS;
  const localDay = Math.floor(localMs / DAY_MS);
  return { hour: (localMs - localDay * DAY_MS) / HOUR_MS, localDay };
}

/**
 * The household's load in whole watts over the minute starting at `minuteMs`: a base, a morning
 * peak at 07:00 and an evening peak at 19:00 local time, and up to ±10 % of noise per minute.
 */
export function loadW(profile: HouseholdProfile, minuteMs: number): number {
  const { hour } = localTime(minuteMs, profile.utcOffsetMinutes);
  const shape =
    profile.baseLoadW +
    profile.morningPeakW * bump(hour, 7, 1) +
    profile.eveningPeakW * bump(hour, 19, 1.5);
  const noise = 0.9 + 0.2 * unitHash(profile.seed, Math.floor(minuteMs / MINUTE_MS));
  return Math.round(shape * noise);
}

/**
 * The PV the panels could give over the minute starting at `minuteMs`, in whole watts: a sun from
 * 06:00 to 20:00 local time peaking at 13:00, 80 % of the capacity at best, times the site's
 * clearness of that local day (0.3..1, the same for every device of the site), with a flicker per
 * minute on cloudy days. No seasons: every day has the same sun.
 */
export function pvAvailableW(profile: HouseholdProfile, minuteMs: number): number {
  if (profile.pvCapacityW <= 0) return 0;
  const { hour, localDay } = localTime(minuteMs, profile.utcOffsetMinutes);
  if (hour <= 6 || hour >= 20) return 0;
  const sun = Math.sin((Math.PI * (hour - 6)) / 14) ** 1.5;
  const clearness = 0.3 + 0.7 * unitHash(profile.siteSeed, localDay);
  const flicker =
    1 - (1 - clearness) * 0.5 * unitHash(profile.siteSeed ^ 0x5bd1e995, minuteMs / MINUTE_MS);
  return Math.round(profile.pvCapacityW * 0.8 * sun * clearness * flicker);
}
