import { TZDate } from '@date-fns/tz';

// "2026-11-23 14:05" typed on the site's clock -> ISO UTC for the API, with @date-fns/tz as the
// app does today (used by the Radix and Mantine pages, which have no zoned value type).
export function siteWallTimeToIso(text, zone) {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59) return null;
  const zoned = new TZDate(y, mo - 1, d, h, mi, s || 0, zone);
  return new Date(zoned.getTime()).toISOString();
}

export function zoneAbbreviation(zone, at = new Date()) {
  return new Intl.DateTimeFormat('en-GB', { timeZone: zone, timeZoneName: 'short' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
}
