import { describe, expect, it } from 'vitest';
import {
  clockChangeOnDay,
  defaultCommandWindow,
  formatClockWithUtc,
  formatInZone,
  formatInZoneWithUtc,
  formatUtc,
  formatWindowInZone,
  formatWindowInZoneWithUtc,
  isFixedOffset,
  isKnownTimeZone,
  parseDateTimeLocal,
  parseInstant,
  toDateTimeLocalValue,
  toUtcTimestamp,
  utcOffsetLabel,
  zoneLabel,
} from '../time.ts';

const iso = (value: string, zone: string) => parseDateTimeLocal(value, zone)?.instant.toISOString();

describe('site time and UTC', () => {
  it('reads Adelaide wall-clock times with the half-hour offset, summer and winter', () => {
    expect(iso('2026-11-21T11:30', 'Australia/Adelaide')).toBe('2026-11-21T01:00:00.000Z');
    expect(iso('2026-06-21T11:30', 'Australia/Adelaide')).toBe('2026-06-21T02:00:00.000Z');
    expect(utcOffsetLabel('2026-11-21T01:00:00Z', 'Australia/Adelaide')).toBe('UTC+10:30');
    expect(utcOffsetLabel('2026-06-21T02:00:00Z', 'Australia/Adelaide')).toBe('UTC+09:30');
  });

  it('shows an instant on the site clock and in UTC', () => {
    expect(formatInZone('2026-11-21T01:00:00Z', 'Australia/Adelaide')).toBe('2026-11-21 11:30');
    expect(formatUtc('2026-11-21T01:00:00Z')).toBe('UTC 2026-11-21 01:00');
    expect(toDateTimeLocalValue('2026-11-21T01:00:00Z', 'Europe/Berlin')).toBe('2026-11-21T02:00');
    expect(toUtcTimestamp(new Date('2026-11-21T01:00:00.000Z'))).toBe('2026-11-21T01:00:00Z');
  });

  it('knows the skipped hour of the Berlin spring-forward day and reads it after the jump', () => {
    expect(parseDateTimeLocal('2026-03-29T01:59', 'Europe/Berlin')).toEqual({
      instant: new Date('2026-03-29T00:59:00Z'),
      fit: 'exact',
    });
    expect(parseDateTimeLocal('2026-03-29T02:30', 'Europe/Berlin')).toEqual({
      instant: new Date('2026-03-29T01:30:00Z'),
      fit: 'skipped',
    });
    expect(iso('2026-03-29T03:00', 'Europe/Berlin')).toBe('2026-03-29T01:00:00.000Z');
  });

  it('knows the repeated hour of the Berlin fall-back day', () => {
    expect(parseDateTimeLocal('2026-10-25T02:30', 'Europe/Berlin')?.fit).toBe('repeated');
    expect(parseDateTimeLocal('2026-10-25T03:30', 'Europe/Berlin')?.fit).toBe('exact');
    expect(parseDateTimeLocal('2026-10-25T01:30', 'Europe/Berlin')?.fit).toBe('exact');
  });

  it('refuses what is no datetime-local value or no calendar date', () => {
    expect(parseDateTimeLocal('', 'UTC')).toBeNull();
    expect(parseDateTimeLocal('2026-11-21 10:00', 'UTC')).toBeNull();
    expect(parseDateTimeLocal('2026-02-30T10:00', 'UTC')).toBeNull();
  });

  it('proposes a window from the next 5-minute boundary plus 5 minutes, one hour long', () => {
    const at = (value: string) => defaultCommandWindow(Date.parse(value));
    expect(at('2026-11-21T00:52:10Z')).toEqual({
      start: new Date('2026-11-21T01:00:00Z'),
      end: new Date('2026-11-21T02:00:00Z'),
    });
    expect(at('2026-11-21T00:55:00Z').start).toEqual(new Date('2026-11-21T01:05:00Z'));
  });

  it('writes windows short within a day and long across midnight', () => {
    expect(formatWindowInZone('2026-11-21T01:00:00Z', '2026-11-21T02:00:00Z', 'UTC')).toBe(
      '2026-11-21 01:00–02:00',
    );
    expect(formatWindowInZone('2026-11-21T23:00:00Z', '2026-11-22T01:00:00Z', 'UTC')).toBe(
      '2026-11-21 23:00 – 2026-11-22 01:00',
    );
  });

  it('gives a short time with UTC, dated on each clock only when not today there', () => {
    const today = '2026-11-21T12:00:00Z';
    expect(formatClockWithUtc('2026-11-21T10:30:00Z', 'Europe/Berlin', today)).toBe(
      '11:30 (Europe/Berlin), UTC 10:30',
    );
    // 23:30 UTC on the 20th is already the 21st in Berlin.
    expect(formatClockWithUtc('2026-11-20T23:30:00Z', 'Europe/Berlin', today)).toBe(
      '00:30 (Europe/Berlin), UTC 20 Nov 23:30',
    );
    expect(formatClockWithUtc('2026-11-20T10:00:00Z', 'UTC', today)).toBe('UTC 20 Nov 10:00');
  });

  it('gives site time with UTC beside it, and UTC once for a site on UTC', () => {
    const instant = '2026-11-21T01:00:00Z';
    expect(formatInZoneWithUtc(instant, 'Europe/Berlin')).toBe(
      '2026-11-21 02:00 (Europe/Berlin), UTC 2026-11-21 01:00',
    );
    expect(formatInZoneWithUtc(instant, 'UTC')).toBe('UTC 2026-11-21 01:00');
    expect(formatWindowInZoneWithUtc(instant, '2026-11-21T02:00:00Z', 'Australia/Adelaide')).toBe(
      '2026-11-21 11:30–12:30 (Australia/Adelaide), UTC 2026-11-21 01:00–02:00',
    );
    expect(formatWindowInZoneWithUtc(instant, '2026-11-21T02:00:00Z', 'UTC')).toBe(
      'UTC 2026-11-21 01:00–02:00',
    );
  });

  it('reads an ISO instant with its zone designator and nothing else', () => {
    expect(parseInstant('2026-11-21T01:00:00Z')).toEqual(new Date('2026-11-21T01:00:00Z'));
    expect(parseInstant('2026-11-21T11:30:00+10:30')).toEqual(new Date('2026-11-21T01:00:00Z'));
    expect(parseInstant('')).toBeNull();
    expect(parseInstant('2026-11-21T11:30')).toBeNull();
  });

  it('finds the clock change of the site day that holds an instant', () => {
    expect(clockChangeOnDay('2026-03-29T10:00:00Z', 'Europe/Berlin')).toEqual({
      at: new Date('2026-03-29T01:00:00Z'),
      forward: true,
      from: 'UTC+01:00',
      to: 'UTC+02:00',
    });
    expect(clockChangeOnDay('2026-10-24T22:30:00Z', 'Europe/Berlin')?.to).toBe('UTC+01:00');
    expect(clockChangeOnDay('2026-11-21T01:00:00Z', 'Europe/Berlin')).toBeNull();
    expect(clockChangeOnDay('2026-11-21T01:00:00Z', 'UTC')).toBeNull();
  });

  it('tells known zones from unknown ones', () => {
    expect(isKnownTimeZone('Australia/Adelaide')).toBe(true);
    expect(isKnownTimeZone('Mars/Olympus_Mons')).toBe(false);
  });

  it('tells known zones from unknown ones, a fixed offset among the known', () => {
    expect(isKnownTimeZone('+09:30')).toBe(true);
    expect(isFixedOffset('+09:30')).toBe(true);
    expect(isFixedOffset('Australia/Adelaide')).toBe(false);
  });
});

describe('a site on the vendor’s fixed offset', () => {
  const instant = '2026-11-21T01:00:00Z';

  it('shows its times on the offset all year, labelled as a UTC offset', () => {
    expect(zoneLabel('+09:30')).toBe('UTC+09:30');
    expect(zoneLabel('Europe/Berlin')).toBe('Europe/Berlin');
    expect(formatInZone(instant, '+09:30')).toBe('2026-11-21 10:30');
    expect(formatInZone('2026-06-21T01:00:00Z', '+09:30')).toBe('2026-06-21 10:30');
    expect(utcOffsetLabel(instant, '-03:30')).toBe('UTC-03:30');
    expect(formatInZoneWithUtc(instant, '+09:30')).toBe(
      '2026-11-21 10:30 (UTC+09:30), UTC 2026-11-21 01:00',
    );
    expect(formatWindowInZoneWithUtc(instant, '2026-11-21T02:00:00Z', '+10:00')).toBe(
      '2026-11-21 11:00–12:00 (UTC+10:00), UTC 2026-11-21 01:00–02:00',
    );
  });

  it('says UTC once for the offset +00:00', () => {
    expect(formatInZoneWithUtc(instant, '+00:00')).toBe('UTC 2026-11-21 01:00');
    expect(formatWindowInZoneWithUtc(instant, '2026-11-21T02:00:00Z', '+00:00')).toBe(
      'UTC 2026-11-21 01:00–02:00',
    );
  });

  it('reads wall-clock times on the offset, which never skips or repeats an hour', () => {
    expect(parseDateTimeLocal('2026-11-21T10:30', '+09:30')).toEqual({
      instant: new Date(instant),
      fit: 'exact',
    });
    // Adelaide's clocks go forward on 2025-10-05; the fixed offset does not.
    expect(parseDateTimeLocal('2025-10-05T02:30', '+09:30')?.fit).toBe('exact');
    expect(toDateTimeLocalValue(instant, '+09:30')).toBe('2026-11-21T10:30');
    expect(clockChangeOnDay('2025-10-04T17:00:00Z', '+09:30')).toBeNull();
    expect(clockChangeOnDay('2025-10-04T17:00:00Z', 'Australia/Adelaide')?.forward).toBe(true);
  });
});
