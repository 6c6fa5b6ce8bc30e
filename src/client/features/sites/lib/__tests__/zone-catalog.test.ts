import { describe, expect, it } from 'vitest';
import { adelaideDepot, brisbaneYard, harbourPlant } from '#client/testing/test-devices.ts';
import {
  fittingZones,
  showsVendorOffset,
  vendorClockOf,
  zoneCatalog,
  zoneChangePreview,
  zoneMatches,
} from '../zone-catalog.ts';

const YEAR = 2026;
const find = (query: string) =>
  zoneCatalog(YEAR)
    .filter((choice) => zoneMatches(choice, query))
    .map((choice) => choice.name);

describe('the zones a site can be set to', () => {
  it('lists each zone with its countries and its offsets in January and July', () => {
    const adelaide = zoneCatalog(YEAR).find((choice) => choice.name === 'Australia/Adelaide');
    expect(adelaide).toMatchObject({
      countries: ['Australia'],
      offsets: ['UTC+10:30', 'UTC+09:30'],
    });
    expect(zoneCatalog(YEAR).some((choice) => choice.name === 'UTC')).toBe(true);
  });

  it('finds zones by city, country and offset, written as the vendor writes it too', () => {
    expect(find('adelaide')).toEqual(['Australia/Adelaide']);
    expect(find('new york')).toEqual(['America/New_York']);
    expect(find('germany')).toEqual(['Europe/Berlin', 'Europe/Zurich']);
    expect(find('australia +9:30')).toEqual([
      'Australia/Adelaide',
      'Australia/Broken_Hill',
      'Australia/Darwin',
    ]);
    expect(find('sao paulo')).toEqual(['America/Sao_Paulo']);
  });

  it("puts first the zones of the site's country that show the vendor's offset", () => {
    // UTC+9:30 in Australia is Adelaide's standard offset and Darwin's all year.
    expect(fittingZones(adelaideDepot(), YEAR)).toEqual([
      'Australia/Adelaide',
      'Australia/Broken_Hill',
      'Australia/Darwin',
    ]);
    // The site's own zone leads.
    expect(fittingZones(brisbaneYard(), YEAR)[0]).toBe('Australia/Brisbane');
    expect(fittingZones(harbourPlant(), YEAR)).toEqual(['Europe/Berlin', 'Europe/Zurich']);
    // Without a country: every zone with the offset in January or July.
    expect(fittingZones({ ...adelaideDepot(), countryCode: undefined }, YEAR)).toEqual([
      'Australia/Adelaide',
      'Australia/Broken_Hill',
      'Australia/Darwin',
    ]);
    expect(fittingZones({ ...adelaideDepot(), clock: { source: 'offset' } }, YEAR)).toEqual([]);
  });

  it("knows what the site's clock becomes when the zone set for it is forgotten", () => {
    expect(vendorClockOf(brisbaneYard(), Date.parse('2026-11-21T00:00:00Z'))).toEqual({
      timeZone: '+10:00',
      clock: { source: 'offset', vendorOffset: '+10:00' },
    });
    expect(
      vendorClockOf(
        { ...harbourPlant(), clock: { source: 'set', vendorOffset: '+01:00' } },
        Date.parse('2026-11-21T00:00:00Z'),
      ),
    ).toEqual({ timeZone: 'Europe/Berlin', clock: { source: 'inferred', vendorOffset: '+01:00' } });
  });
});

describe('what a change of zone does, in one sentence', () => {
  it('from the fixed clock to a zone with daylight saving time', () => {
    expect(zoneChangePreview('+09:30', 'Australia/Adelaide', YEAR)).toBe(
      '14:00 on the fixed clock is 15:00 in Australia/Adelaide in summer (UTC+10:30, daylight saving time) and 14:00 in winter (UTC+09:30).',
    );
    expect(zoneChangePreview('+10:00', 'Australia/Adelaide', YEAR)).toBe(
      '14:00 on the fixed clock is 14:30 in Australia/Adelaide in summer (UTC+10:30, daylight saving time) and 13:30 in winter (UTC+09:30).',
    );
  });

  it('from the fixed clock to a zone without, and from a zone to another', () => {
    expect(zoneChangePreview('+09:30', 'Australia/Darwin', YEAR)).toBe(
      '14:00 on the fixed clock is 14:00 in Australia/Darwin all year (UTC+09:30).',
    );
    expect(zoneChangePreview('Europe/Berlin', 'Europe/Zurich', YEAR)).toBe(
      '14:00 in Europe/Berlin is 14:00 in Europe/Zurich all year (UTC+01:00 in winter, UTC+02:00 in summer).',
    );
    expect(zoneChangePreview('Australia/Adelaide', 'Australia/Darwin', YEAR)).toBe(
      '14:00 in Australia/Adelaide is 13:00 in Australia/Darwin in January and 14:00 in July (UTC+09:30 all year).',
    );
  });

  it('tells a zone that never has the vendor’s offset', () => {
    expect(showsVendorOffset('Australia/Adelaide', '+10:30', YEAR)).toBe(true);
    expect(showsVendorOffset('Australia/Perth', '+09:30', YEAR)).toBe(false);
  });
});
