import type { Site } from '#domain/device.ts';
import { offsetMinutes } from '#domain/site-clock.ts';
import { formatInZoneWithUtc, zoneLabel } from './time.ts';

export type ClockedSite = Pick<Site, 'name' | 'timeZone' | 'clock' | 'countryCode'>;

/** A fixed offset as the vendor writes it (docs/upstream.md, Site clocks): `+01:00` as `UTC+1:00`. */
export function vendorOffsetWords(offset: string): string {
  const minutes = offsetMinutes(offset);
  const sign = minutes < 0 ? '-' : '+';
  const hours = Math.floor(Math.abs(minutes) / 60);
  const rest = String(Math.abs(minutes) % 60).padStart(2, '0');
  return `UTC${sign}${hours}:${rest}`;
}

let regionNames: Intl.DisplayNames | undefined;

/** The English name of an ISO 3166-1 alpha-2 country (`DE`: Germany); the code when unknown. */
export function countryName(countryCode: string): string {
  try {
    regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
    return regionNames.of(countryCode.toUpperCase()) ?? countryCode;
  } catch {
    return countryCode;
  }
}

/** `warning` for the vendor's fixed offset (drifts an hour at DST), `note` for an inferred zone, `quiet` for a set one. */
export type ClockTone = 'warning' | 'note' | 'quiet';

/** A site's clock in operator words (docs/decisions/006, section 6). */
export interface SiteClockWords {
  tone: ClockTone;
  text: string;
  /** For a zone set by an administrator: who set it and when (site clock, UTC beside it). */
  setBy?: string;
}

/**
 * The words of a site's clock: on the vendor's fixed offset (no daylight saving), a zone worked out
 * from country and offset, or a zone set by an administrator (with who and when).
 */
export function siteClockWords(site: ClockedSite): SiteClockWords {
  const { clock } = site;
  if (clock.source === 'offset')
    return {
      tone: 'warning',
      text: clock.vendorOffset
        ? `Times for ${site.name} are on a fixed ${zoneLabel(site.timeZone)} clock, which does not follow daylight saving time.`
        : `Times for ${site.name} are in UTC: the vendor gives no time zone for the site that powerdeck can read.`,
    };
  if (clock.source === 'inferred') {
    const from = [
      site.countryCode ? countryName(site.countryCode) : undefined,
      clock.vendorOffset ? vendorOffsetWords(clock.vendorOffset) : undefined,
    ].filter((part) => part !== undefined);
    return {
      tone: 'note',
      text: `Times for ${site.name} are on ${site.timeZone}${from.length > 0 ? `, worked out from ${from.join(' and ')}` : ''}.`,
    };
  }
  const when = clock.setAt ? ` on ${formatInZoneWithUtc(clock.setAt, site.timeZone)}` : '';
  return {
    tone: 'quiet',
    text: `Times for ${site.name} are on ${zoneLabel(site.timeZone)}.`,
    setBy: `Set by ${clock.setBy ?? 'an administrator'}${when}.`,
  };
}

/** The site's clock in a few words: `Australia/Adelaide`, or `UTC+09:30, fixed`. */
export function shortClockLabel(site: Pick<Site, 'timeZone' | 'clock'>): string {
  return site.clock.source === 'offset' && site.clock.vendorOffset
    ? `${zoneLabel(site.timeZone)}, fixed`
    : zoneLabel(site.timeZone);
}
