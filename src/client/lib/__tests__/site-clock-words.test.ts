import { describe, expect, it } from 'vitest';
import { adelaideDepot, brisbaneYard, harbourPlant } from '../../testing/test-devices.ts';
import { deviceRowLabel, deviceStateWords } from '../device-state-words.ts';
import {
  countryName,
  shortClockLabel,
  siteClockWords,
  vendorOffsetWords,
} from '../site-clock-words.ts';

describe('a site clock in words', () => {
  it.each([
    [
      'warns of the vendor’s fixed offset',
      adelaideDepot,
      {
        tone: 'warning',
        text: 'Times for Adelaide Depot are on a fixed UTC+09:30 clock, which does not follow daylight saving time.',
      },
      'UTC+09:30, fixed',
    ],
    [
      'says where an inferred zone came from, in the vendor’s own way of writing the offset',
      harbourPlant,
      {
        tone: 'note',
        text: 'Times for Harbour plant are on Europe/Berlin, worked out from Germany and UTC+1:00.',
      },
      'Europe/Berlin',
    ],
  ] as const)('%s', (_says, site, words, label) => {
    expect(siteClockWords(site())).toEqual(words);
    expect(shortClockLabel(site())).toBe(label);
  });

  it('says times are in UTC when the vendor gives no offset it can read', () => {
    const site = { ...adelaideDepot(), timeZone: 'UTC', clock: { source: 'offset' as const } };
    expect(siteClockWords(site).text).toBe(
      'Times for Adelaide Depot are in UTC: the vendor gives no time zone for the site that powerdeck can read.',
    );
  });

  it('names who set a zone and when, on the site’s clock with UTC beside it', () => {
    expect(siteClockWords(brisbaneYard())).toEqual({
      tone: 'quiet',
      text: 'Times for Brisbane Yard are on Australia/Brisbane.',
      setBy: 'Set by Dana Admin on 2026-11-20 13:30 (Australia/Brisbane), UTC 2026-11-20 03:30.',
    });
    const unsigned = { ...brisbaneYard(), clock: { source: 'set' as const } };
    expect(siteClockWords(unsigned).setBy).toBe('Set by an administrator.');
  });

  it('writes offsets as the vendor does and countries by name', () => {
    expect(vendorOffsetWords('+01:00')).toBe('UTC+1:00');
    expect(vendorOffsetWords('-03:30')).toBe('UTC-3:30');
    expect(vendorOffsetWords('+00:00')).toBe('UTC+0:00');
    expect(countryName('de')).toBe('Germany');
    expect(countryName('ZZ')).toBe('Unknown Region');
  });
});

describe('a device’s state in words', () => {
  it('says faulted and offline, and nothing for a device that is well', () => {
    const device = { name: 'Battery A', online: true };
    expect(deviceStateWords(device)).toBe('');
    expect(deviceRowLabel(device)).toBe('Battery A');
    expect(deviceRowLabel({ ...device, online: false })).toBe('Battery A · offline');
    expect(deviceRowLabel({ ...device, faulted: true })).toBe('Battery A ⚠ faulted');
    expect(deviceStateWords({ online: false, faulted: true })).toBe('faulted, offline');
  });
});
