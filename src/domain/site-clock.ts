import { z } from 'zod';
import { UtcTimestampSchema } from './time.ts';

/** As `Intl` and `@date-fns/tz` accept it, e.g. `+08:00`. */
export const FIXED_OFFSET_PATTERN = /^[+-](?:0\d|1[0-4]):[0-5]\d$/;

/**
 * Reads the vendor's `UTC+8:00`, `UTC-3:30`, `UTC+10`, `UTC` (also `GMT`, bare `+08:00`) as
 * `+08:00` (docs/upstream.md, Site clocks). Undefined for anything else or beyond ±14:00.
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

/** E.g. `+10:30` is 630, `-03:00` is -180. */
export function offsetMinutes(offset: string): number {
  const sign = offset.startsWith('-') ? -1 : 1;
  const [hours = '0', minutes = '0'] = offset.slice(1).split(':');
  return sign * (Number(hours) * 60 + Number(minutes));
}

/** An IANA name `Intl` knows, or a fixed offset. */
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

/** docs/decisions/006, section 6. */
export const SITE_CLOCK_SOURCES = ['set', 'inferred', 'offset'] as const;
export const SiteClockSourceSchema = z.enum(SITE_CLOCK_SOURCES);
export type SiteClockSource = z.infer<typeof SiteClockSourceSchema>;

/** `offset`: the vendor's fixed offset, which cannot follow daylight saving time. */
export const SiteClockSchema = z.object({
  source: SiteClockSourceSchema,
  vendorOffset: z.string().regex(FIXED_OFFSET_PATTERN).optional(),
  setBy: z.string().optional(),
  setAt: UtcTimestampSchema.optional(),
});
export type SiteClock = z.infer<typeof SiteClockSchema>;

/** A fixed offset only for a site that keeps no daylight saving time. */
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

export interface CountryZone {
  name: string;
  /** Main one first, when the list says. */
  countries?: readonly string[];
}

const SAMPLE_HOURS = 6;

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

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
 * The country's zones showing `offset` some time of `year` must all behave alike through it, else
 * undefined and the site stays on the fixed offset (docs/decisions/006, section 6): DE `+01:00`
 * is Europe/Berlin; AU `+10:00` fits Sydney and Brisbane, so it stays fixed.
 * @param zonesOfCountry most important first (the BFF passes `countries-and-timezones`').
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

export interface SiteClockInput {
  stored?: { timeZone: string; setBy?: string | undefined; setAt?: string | undefined } | undefined;
  countryCode?: string | undefined;
  /** E.g. `UTC+8:00`. */
  vendorTimeZone?: string | undefined;
  zonesOfCountry: (countryCode: string) => readonly CountryZone[];
  /** Epoch ms: the year whose behaviour is compared. */
  nowMs: number;
}

/** Set, else inferred, else the vendor's offset, else UTC (docs/decisions/006, section 6). */
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
