import ct from 'countries-and-timezones';
import { describe, expect, it } from 'vitest';
import {
  inferSiteZone,
  isUsableTimeZone,
  parseUtcOffset,
  SiteTimeZoneRequestSchema,
  siteClockOf,
  type CountryZone,
} from '../site-clock.ts';

/** The zones of a country as the BFF passes them: from countries-and-timezones. */
function zonesOf(countryCode: string): CountryZone[] {
  return (ct.getCountry(countryCode)?.timezones ?? []).map((name) => ({
    name,
    countries: ct.getTimezone(name)?.countries ?? [],
  }));
}

const YEAR = 2026;
const infer = (country: string, vendorZone: string) =>
  inferSiteZone(country, parseUtcOffset(vendorZone) ?? 'invalid', zonesOf(country), YEAR);

describe('reading the offset the vendor gives a site', () => {
  it.each([
    ['UTC+8:00', '+08:00'],
    ['UTC-3:30', '-03:30'],
    ['UTC', '+00:00'],
    ['UTC+10', '+10:00'],
    ['UTC+5:45', '+05:45'],
    ['GMT-05:00', '-05:00'],
    ['+09:30', '+09:30'],
    ['UTC-0:00', '+00:00'],
  ])('reads %s as %s', (text, offset) => {
    expect(parseUtcOffset(text)).toBe(offset);
  });

  it.each(['', 'Europe/Berlin', 'UTC+15:00', 'UTC+8:75', 'CET', 'UTC+8:00 DST'])(
    'refuses %j',
    (text) => {
      expect(parseUtcOffset(text)).toBeUndefined();
    },
  );
});

describe('inferring a site zone from its country and offset', () => {
  it('finds Europe/Berlin for DE with UTC+1:00, and with its summer offset UTC+2:00', () => {
    expect(infer('DE', 'UTC+1:00')).toBe('Europe/Berlin');
    expect(infer('DE', 'UTC+2:00')).toBe('Europe/Berlin');
  });

  it('keeps the offset for AU with UTC+10:00: Sydney keeps daylight saving time, Brisbane not', () => {
    expect(infer('AU', 'UTC+10:00')).toBeUndefined();
  });

  it('keeps the offset for AU with UTC+9:30: Adelaide keeps daylight saving time, Darwin not', () => {
    expect(infer('AU', 'UTC+9:30')).toBeUndefined();
  });

  it("keeps the offset for AU with UTC+10:30: Adelaide's summer offset is Lord Howe Island's standard one", () => {
    // The decision record's rule: every zone showing the offset must behave alike. Lord Howe
    // (+10:30, +11:00 in summer) and Adelaide (+9:30, +10:30 in summer) do not.
    expect(zonesOf('AU').map((zone) => zone.name)).toContain('Australia/Lord_Howe');
    expect(infer('AU', 'UTC+10:30')).toBeUndefined();
  });

  it('finds the one zone of a country when only it shows the offset', () => {
    expect(infer('AU', 'UTC+8:00')).toBe('Australia/Perth');
    expect(infer('NZ', 'UTC+13:00')).toBe('Pacific/Auckland');
    expect(infer('JP', 'UTC+9:00')).toBe('Asia/Tokyo');
  });

  it('prefers a zone whose main country is the site country among zones that behave alike', () => {
    const zones = [
      { name: 'Europe/Zurich', countries: ['CH', 'DE'] },
      { name: 'Europe/Berlin', countries: ['DE'] },
    ];
    expect(inferSiteZone('DE', '+01:00', zones, YEAR)).toBe('Europe/Berlin');
  });

  it('finds nothing when no zone of the country shows the offset, or the country is unknown', () => {
    expect(infer('DE', 'UTC+8:00')).toBeUndefined();
    expect(inferSiteZone('XX', '+01:00', [], YEAR)).toBeUndefined();
  });
});

describe('the clock a site is shown on', () => {
  const nowMs = Date.UTC(YEAR, 10, 25);

  it('uses the zone an administrator set, saying who and when', () => {
    expect(
      siteClockOf({
        stored: { timeZone: 'Australia/Brisbane', setBy: 'Ada', setAt: '2026-11-20T08:00:00.000Z' },
        countryCode: 'AU',
        vendorTimeZone: 'UTC+10:00',
        zonesOfCountry: zonesOf,
        nowMs,
      }),
    ).toEqual({
      timeZone: 'Australia/Brisbane',
      clock: {
        source: 'set',
        vendorOffset: '+10:00',
        setBy: 'Ada',
        setAt: '2026-11-20T08:00:00.000Z',
      },
    });
  });

  it('infers the zone when the country and offset name one', () => {
    expect(
      siteClockOf({
        countryCode: 'de',
        vendorTimeZone: 'UTC+1:00',
        zonesOfCountry: zonesOf,
        nowMs,
      }),
    ).toEqual({
      timeZone: 'Europe/Berlin',
      clock: { source: 'inferred', vendorOffset: '+01:00' },
    });
  });

  it('falls back to the fixed offset, which Intl accepts as a zone', () => {
    const clock = siteClockOf({
      countryCode: 'AU',
      vendorTimeZone: 'UTC+10:00',
      zonesOfCountry: zonesOf,
      nowMs,
    });
    expect(clock).toEqual({
      timeZone: '+10:00',
      clock: { source: 'offset', vendorOffset: '+10:00' },
    });
    expect(isUsableTimeZone(clock.timeZone)).toBe(true);
    expect(
      new Intl.DateTimeFormat('en-GB', { timeZone: clock.timeZone, timeStyle: 'short' }).format(
        Date.UTC(YEAR, 5, 1, 0, 0),
      ),
    ).toBe('10:00');
  });

  it('uses the offset without a country, and UTC when the vendor gave nothing readable', () => {
    expect(
      siteClockOf({ vendorTimeZone: 'UTC-3:30', zonesOfCountry: zonesOf, nowMs }).timeZone,
    ).toBe('-03:30');
    expect(siteClockOf({ vendorTimeZone: 'somewhere', zonesOfCountry: zonesOf, nowMs })).toEqual({
      timeZone: 'UTC',
      clock: { source: 'offset' },
    });
  });
});

describe('a site time zone an administrator sets', () => {
  it.each(['Europe/Berlin', 'Australia/Lord_Howe', 'UTC', '+10:00', '-03:30'])(
    'accepts %s',
    (zone) => {
      expect(SiteTimeZoneRequestSchema.safeParse({ timeZone: zone }).success).toBe(true);
    },
  );

  it.each(['Europe/Atlantis', 'UTC+8:00', '', '../etc', '+15:00'])('refuses %j', (zone) => {
    expect(SiteTimeZoneRequestSchema.safeParse({ timeZone: zone }).success).toBe(false);
  });
});
