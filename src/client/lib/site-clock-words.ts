import type { Site } from '../../domain/device.ts';
import { offsetMinutes } from '../../domain/site-clock.ts';
import { formatInZoneWithUtc, zoneLabel } from './time.ts';

/** What the words of a site's clock need of the site. */
export type ClockedSite = Pick<Site, 'name' | 'timeZone' | 'clock' | 'countryCode'>;

/**
 * A fixed offset written as the vendor writes a site's time zone: `+01:00` as `UTC+1:00`,
 * `-03:30` as `UTC-3:30` (docs/upstream.md, Site clocks), so the words match what the operator
 * sees in the vendor's app.
 */
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

/**
 * How loudly a clock is spoken of: `warning` for the vendor's fixed offset (times drift by an
 * hour at every daylight saving change the site keeps), `note` for a zone worked out from the
 * country and offset, `quiet` for a zone an administrator set.
 */
export type ClockTone = 'warning' | 'note' | 'quiet';

/** A site's clock in operator words (docs/decisions/006, section 6). */
export interface SiteClockWords {
  tone: ClockTone;
  /** The sentence: which clock the site's times are on, and where it came from. */
  text: string;
  /** For a zone set by an administrator: who set it and when (site clock, UTC beside it). */
  setBy?: string;
}

/**
 * The words of a site's clock:
 * - the vendor's offset: "Times for Adelaide Depot are on a fixed UTC+09:30 clock, which does not
 *   follow daylight saving time." (in UTC when the vendor gives no offset powerdeck can read);
 * - inferred: "Times for Harbour plant are on Europe/Berlin, worked out from Germany and
 *   UTC+1:00.";
 * - set: "Times for Adelaide Depot are on Australia/Adelaide.", with who set it and when.
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

/**
 * The site's clock in a few words, for a label beside the site's name (the timeline's site row):
 * `Australia/Adelaide`, or `UTC+09:30, fixed` for the vendor's offset.
 */
export function shortClockLabel(site: Pick<Site, 'timeZone' | 'clock'>): string {
  return site.clock.source === 'offset' && site.clock.vendorOffset
    ? `${zoneLabel(site.timeZone)}, fixed`
    : zoneLabel(site.timeZone);
}
