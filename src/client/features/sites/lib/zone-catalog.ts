import { TZDate } from '@date-fns/tz';
import ct from 'countries-and-timezones';
import type { Site } from '#domain/device.ts';
import {
  inferSiteZone,
  isUsableTimeZone,
  offsetMinutes,
  siteClockOf,
  type CountryZone,
} from '#domain/site-clock.ts';
import { formatInZone, isFixedOffset, utcOffsetLabel, zoneLabel } from '#client/lib/time.ts';
import { vendorOffsetWords } from '#client/lib/site-clock-words.ts';

export interface ZoneChoice {
  name: string;
  /** The countries it serves, its main one first, in English (`Germany`). */
  countries: string[];
  /** Its offsets in January and July of the year, distinct, e.g. `['UTC+10:30', 'UTC+09:30']`. */
  offsets: string[];
  /** Lower-case text a search matches: name (with spaces for `_`), countries and offsets. */
  searchText: string;
}

/** Mid-January and mid-July, 12:00 UTC: one instant in each half of the year's seasons. */
const seasonSamples = (year: number) => [Date.UTC(year, 0, 15, 12), Date.UTC(year, 6, 15, 12)];

/** `UTC+09:30` also as the vendor writes it, `UTC+9:30`, and bare, `+09:30`, for searching. */
const offsetSearchText = (label: string) =>
  `${label} ${vendorOffsetWords(label.slice(3) || '+00:00')} ${label.slice(3)}`;

const countryNameOf = (code: string) => ct.getCountry(code)?.name ?? code;

const catalogs = new Map<number, readonly ZoneChoice[]>();

/** Every IANA zone serving a country (and `UTC`) that this browser's `Intl` knows, with countries and offsets in `year`. */
export function zoneCatalog(year: number): readonly ZoneChoice[] {
  const known = catalogs.get(year);
  if (known) return known;
  const names = Object.values(ct.getAllTimezones())
    .filter((zone) => zone.countries.length > 0 && !zone.aliasOf)
    .map((zone) => zone.name as string);
  const choices = [...new Set([...names, 'UTC'])]
    .filter(isUsableTimeZone)
    .sort((a, b) => a.localeCompare(b))
    .map((name): ZoneChoice => {
      const countries = (ct.getTimezone(name)?.countries ?? []).map(countryNameOf);
      const offsets = [...new Set(seasonSamples(year).map((ms) => utcOffsetLabel(ms, name)))];
      return {
        name,
        countries,
        offsets,
        searchText: [name.replaceAll('_', ' '), ...countries, ...offsets.map(offsetSearchText)]
          .join(' ')
          .toLowerCase(),
      };
    });
  catalogs.set(year, choices);
  return choices;
}

/** True when every word of `query` (case and accents ignored) is in the search text: `adel`, `australia 9:30`. */
export function zoneMatches(choice: ZoneChoice, query: string): boolean {
  const fold = (text: string) =>
    text
      .normalize('NFD')
      .replace(/\p{Diacritic}/gu, '')
      .toLowerCase();
  const haystack = fold(choice.searchText);
  return fold(query)
    .replaceAll('_', ' ')
    .split(/\s+/)
    .filter((word) => word !== '')
    .every((word) => haystack.includes(word));
}

/** The zones of a country, most important first, as the BFF passes them to the clock rule. */
export function zonesOfCountry(countryCode: string): CountryZone[] {
  return (ct.getCountry(countryCode.toUpperCase())?.timezones ?? []).map((name) => ({
    name,
    countries: ct.getTimezone(name)?.countries ?? [],
  }));
}

/**
 * The zones that fit the site, listed first (docs/decisions/006, section 6): its country's zones
 * showing the vendor's offset in `year` ({@link inferSiteZone}); without a country, any zone with that offset.
 */
export function fittingZones(
  site: Pick<Site, 'countryCode' | 'clock' | 'timeZone'>,
  year: number,
): string[] {
  const offset = site.clock.vendorOffset;
  if (!offset) return [];
  const country = site.countryCode?.trim().toUpperCase();
  const fits = country
    ? zonesOfCountry(country)
        .filter((zone) => inferSiteZone(country, offset, [zone], year) !== undefined)
        .map((zone) => zone.name)
    : zoneCatalog(year)
        .filter((choice) => choice.offsets.includes(`UTC${offset}`))
        .map((choice) => choice.name);
  const own = fits.indexOf(site.timeZone);
  return own > 0 ? [site.timeZone, ...fits.filter((name) => name !== site.timeZone)] : fits;
}

/** What the site's clock becomes when the zone set for it is forgotten (the BFF's same rule). */
export function vendorClockOf(
  site: Pick<Site, 'countryCode' | 'clock'>,
  nowMs: number,
): Pick<Site, 'timeZone' | 'clock'> {
  return siteClockOf({
    countryCode: site.countryCode,
    vendorTimeZone: site.clock.vendorOffset,
    zonesOfCountry,
    nowMs,
  });
}

const MONTHS = ['January', 'July'] as const;

/**
 * What choosing `toZone` changes, in one sentence from 14:00 site time in January and July
 * (docs/decisions/006, section 6), e.g. "14:00 on the fixed clock is 15:00 in Australia/Adelaide in summer…".
 *
 * @param fromZone the zone shown now: an IANA name or a fixed offset.
 */
export function zoneChangePreview(fromZone: string, toZone: string, year: number): string {
  const fixed = isFixedOffset(fromZone);
  const samples = [0, 6].map((month, i) => {
    const instantMs = new TZDate(year, month, 15, 14, 0, fromZone).getTime();
    const offset = utcOffsetLabel(instantMs, toZone);
    return {
      month: MONTHS[i] ?? '',
      wall: formatInZone(instantMs, toZone).slice(11),
      offset,
      minutes: offsetMinutes(offset.slice(3) || '+00:00'),
    };
  });
  const [january, july] = samples as [(typeof samples)[0], (typeof samples)[0]];
  const start = fixed ? '14:00 on the fixed clock is' : `14:00 in ${zoneLabel(fromZone)} is`;
  const [summer, winter] = january.minutes > july.minutes ? [january, july] : [july, january];
  if (january.wall === july.wall)
    return `${start} ${january.wall} in ${toZone} all year (${
      january.minutes === july.minutes
        ? january.offset
        : `${winter.offset} in winter, ${summer.offset} in summer`
    }).`;
  if (january.minutes === july.minutes)
    return `${start} ${january.wall} in ${toZone} in January and ${july.wall} in July (${january.offset} all year).`;
  return `${start} ${summer.wall} in ${toZone} in summer (${summer.offset}, daylight saving time) and ${winter.wall} in winter (${winter.offset}).`;
}

/** Whether `zone` ever shows the vendor's offset: one that never does is likely not the site's (the dialog warns). */
export function showsVendorOffset(zone: string, vendorOffset: string, year: number): boolean {
  return seasonSamples(year).some((ms) => utcOffsetLabel(ms, zone) === `UTC${vendorOffset}`);
}
