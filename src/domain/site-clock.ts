import { z } from 'zod';
import { UtcTimestampSchema } from './time.ts';

/**
 * A fixed UTC offset as `Intl` and `@date-fns/tz` accept it for a time zone: sign, two-digit
 * hours, colon, minutes, e.g. `+08:00`, `-03:30`, `+00:00`.
 */
export const FIXED_OFFSET_PATTERN = /^[+-](?:0\d|1[0-4]):[0-5]\d$/;

/**
 * Reads a UTC offset written as the vendor writes a site's time zone (docs/upstream.md, Site
 * clocks): `UTC+8:00`, `UTC-3:30`, `UTC+10`, `UTC` (also with `GMT`, or bare `+08:00`), as a
 * fixed offset such as `+08:00`. Undefined for anything else, and for offsets beyond ±14:00.
 */
export function parseUtcOffset(text: string): string | undefined {
  const match = /^\s*(?:UTC|GMT)?\s*(?:([+-])\s*(\d{1,2})(?::?(\d{2}))?)?\s*$/i.exec(text);
  if (!match || text.trim() === '') return undefined;
  const [, sign, hours, minutes] = match;
  if (sign === undefined || hours === undefined) return '+00:00';
  const offset = `${sign}${hours.padStart(2, '0')}:${minutes ?? '00'}`;
  if (!FIXED_OFFSET_PATTERN.test(offset)) return undefined;
  return offset === '-00:00' ? '+00:00' : offset;
}

/** Minutes east of UTC of a fixed offset such as `+10:30` (630) or `-03:00` (-180). */
export function offsetMinutes(offset: string): number {
  const sign = offset.startsWith('-') ? -1 : 1;
  const [hours = '0', minutes = '0'] = offset.slice(1).split(':');
  return sign * (Number(hours) * 60 + Number(minutes));
}

/**
 * True when `zone` can serve as a site's time zone: an IANA name that `Intl` knows, or a fixed
 * offset ({@link FIXED_OFFSET_PATTERN}).
 */
export function isUsableTimeZone(zone: string): boolean {
  if (FIXED_OFFSET_PATTERN.test(zone)) return true;
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Where the zone a site is shown on came from (docs/decisions/006, section 6). */
export const SITE_CLOCK_SOURCES = ['set', 'inferred', 'offset'] as const;
export const SiteClockSourceSchema = z.enum(SITE_CLOCK_SOURCES);
export type SiteClockSource = z.infer<typeof SiteClockSourceSchema>;

/**
 * A site's clock: `set` by an administrator (who and when), `inferred` from the site's country
 * and the vendor's offset, or the vendor's fixed `offset`, which cannot follow daylight saving
 * time. `vendorOffset` is the offset the vendor gives for the site, as a fixed offset.
 */
export const SiteClockSchema = z.object({
  source: SiteClockSourceSchema,
  vendorOffset: z.string().regex(FIXED_OFFSET_PATTERN).optional(),
  setBy: z.string().optional(),
  setAt: UtcTimestampSchema.optional(),
});
export type SiteClock = z.infer<typeof SiteClockSchema>;

/**
 * A site's time zone as an administrator sets it: an IANA name, or a fixed offset for a site
 * that keeps no daylight saving time and has no zone of its own.
 */
export const SiteTimeZoneSchema = z
  .string()
  .trim()
  .min(1, { error: 'Enter a time zone such as Europe/Berlin' })
  .max(64)
  .refine(isUsableTimeZone, {
    error: 'Enter a time zone by its name, such as Europe/Berlin or Australia/Sydney',
  });

/** Body of `PUT /api/sites/{siteId}/time-zone`. */
export const SiteTimeZoneRequestSchema = z.strictObject({ timeZone: SiteTimeZoneSchema });
export type SiteTimeZoneRequest = z.infer<typeof SiteTimeZoneRequestSchema>;

/** A zone of a country as a country-to-zones list gives it, most important first. */
export interface CountryZone {
  /** IANA name. */
  name: string;
  /** The countries the zone serves, its main one first, when the list says. */
  countries?: readonly string[];
}

/** Hours between two samples of a zone's offset through a year. */
const SAMPLE_HOURS = 6;

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The UTC offset of `zone` at `atMs`, in minutes east of UTC. */
function zoneOffsetMinutes(zone: string, atMs: number): number {
  let format = offsetFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    offsetFormats.set(zone, format);
  }
  const name = format.formatToParts(atMs).find((part) => part.type === 'timeZoneName')?.value;
  const offset = parseUtcOffset(name ?? 'GMT');
  return offset === undefined ? Number.NaN : offsetMinutes(offset);
}

/** The zone's offsets through `year`, one every {@link SAMPLE_HOURS} hours, as one string. */
function behaviourThrough(zone: string, year: number): string {
  const startMs = Date.UTC(year, 0, 1);
  const endMs = Date.UTC(year + 1, 0, 1);
  const offsets: number[] = [];
  for (let atMs = startMs; atMs < endMs; atMs += SAMPLE_HOURS * 3_600_000)
    offsets.push(zoneOffsetMinutes(zone, atMs));
  return offsets.join(',');
}

const inferred = new Map<string, string | null>();

/**
 * The IANA zone a site is inferred to keep from its country and the vendor's fixed offset
 * (docs/decisions/006, section 6): the zones of the country that show `offset` at some time of
 * `year` (as their standard or their daylight offset) must all behave alike through that year,
 * compared with `Intl` every six hours; then the first of them is the site's zone (a zone whose
 * main country is `countryCode` before one that only serves it). Undefined when none shows the
 * offset or they differ: the site is then shown on the fixed offset.
 *
 * Examples: DE with `+01:00` is Europe/Berlin; AU with `+10:00` is Sydney's or Brisbane's
 * (one keeps daylight saving time, the other not), so it stays a fixed offset.
 *
 * @param zonesOfCountry the zones of `countryCode`, from a maintained country-to-zones list
 *   (the BFF passes `countries-and-timezones`'), most important first.
 * @param year the calendar year compared (UTC), e.g. the current one.
 */
export function inferSiteZone(
  countryCode: string,
  offset: string,
  zonesOfCountry: readonly CountryZone[],
  year: number,
): string | undefined {
  const key = `${countryCode}|${offset}|${year}|${zonesOfCountry.map((z) => z.name).join(',')}`;
  const known = inferred.get(key);
  if (known !== undefined) return known ?? undefined;
  const wanted = offsetMinutes(offset);
  const usable = zonesOfCountry.filter((zone) => isUsableTimeZone(zone.name));
  const behaviours = new Map<string, string[]>();
  for (const zone of usable) {
    const behaviour = behaviourThrough(zone.name, year);
    if (!behaviour.split(',').map(Number).includes(wanted)) continue;
    behaviours.set(behaviour, [...(behaviours.get(behaviour) ?? []), zone.name]);
  }
  let zone: string | undefined;
  if (behaviours.size === 1) {
    const [names = []] = behaviours.values();
    const main = names.find((name) =>
      usable.some((z) => z.name === name && z.countries?.[0] === countryCode),
    );
    zone = main ?? names[0];
  }
  if (inferred.size > 10_000) inferred.clear();
  inferred.set(key, zone ?? null);
  return zone;
}

/** What a site's clock is worked out from. */
export interface SiteClockInput {
  /** The zone an administrator set for the site, with who and when. */
  stored?: { timeZone: string; setBy?: string | undefined; setAt?: string | undefined } | undefined;
  countryCode?: string | undefined;
  /** The vendor's time zone of the site as it came, e.g. `UTC+8:00`. */
  vendorTimeZone?: string | undefined;
  zonesOfCountry: (countryCode: string) => readonly CountryZone[];
  /** Now, epoch ms: the year whose behaviour is compared. */
  nowMs: number;
}

/**
 * The zone a site is shown on and where it came from (docs/decisions/006, section 6): the zone
 * an administrator set; else the zone inferred from the country and the vendor's offset
 * ({@link inferSiteZone}); else the vendor's fixed offset; UTC when the vendor gave none it can
 * read.
 */
export function siteClockOf(input: SiteClockInput): { timeZone: string; clock: SiteClock } {
  const vendorOffset =
    input.vendorTimeZone === undefined ? undefined : parseUtcOffset(input.vendorTimeZone);
  const withOffset = vendorOffset === undefined ? {} : { vendorOffset };
  if (input.stored)
    return {
      timeZone: input.stored.timeZone,
      clock: {
        source: 'set',
        ...withOffset,
        ...(input.stored.setBy ? { setBy: input.stored.setBy } : {}),
        ...(input.stored.setAt ? { setAt: input.stored.setAt } : {}),
      },
    };
  if (vendorOffset === undefined) return { timeZone: 'UTC', clock: { source: 'offset' } };
  const country = input.countryCode?.trim().toUpperCase();
  const zone =
    country && /^[A-Z]{2}$/.test(country)
      ? inferSiteZone(
          country,
          vendorOffset,
          input.zonesOfCountry(country),
          new Date(input.nowMs).getUTCFullYear(),
        )
      : undefined;
  if (zone) return { timeZone: zone, clock: { source: 'inferred', vendorOffset } };
  return { timeZone: vendorOffset, clock: { source: 'offset', vendorOffset } };
}
