import { TZDate, tz, tzScan } from '@date-fns/tz';
import { addDays, addHours, addMinutes, format, isValid } from 'date-fns';
import { z } from 'zod';
import { FIXED_OFFSET_PATTERN, offsetMinutes } from '#domain/site-clock.ts';

// Windows are UTC on the wire (docs/upstream.md, Commands), operators think in site time: every
// conversion goes through @date-fns/tz (half-hour zones, 23/25-hour DST days).

type Instant = Date | string | number;

const DISPLAY_PATTERN = 'yyyy-MM-dd HH:mm';
const INPUT_PATTERN = "yyyy-MM-dd'T'HH:mm";
const INPUT_VALUE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

const toDate = (instant: Instant): Date => (instant instanceof Date ? instant : new Date(instant));

/** True when the runtime knows `timeZone` (IANA, `UTC`, or a fixed offset, ECMA-402 2024). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** True for a fixed UTC offset such as `+10:00` (docs/decisions/006, section 6). */
export function isFixedOffset(timeZone: string): boolean {
  return FIXED_OFFSET_PATTERN.test(timeZone);
}

/** `Europe/Berlin`, or `UTC+10:00`: a bare `+10:00` beside a time reads as arithmetic. */
export function zoneLabel(timeZone: string): string {
  return isFixedOffset(timeZone) ? `UTC${timeZone}` : timeZone;
}

function isUtcClock(timeZone: string): boolean {
  return timeZone === 'UTC' || (isFixedOffset(timeZone) && offsetMinutes(timeZone) === 0);
}

/** `2026-11-21 11:30`: the instant on the wall clock of `timeZone`. */
export function formatInZone(instant: Instant, timeZone: string): string {
  return format(toDate(instant), DISPLAY_PATTERN, { in: tz(timeZone) });
}

/** `14:05:20` on `timeZone`'s clock: a queued change goes to the second. */
export function clockTimeWithSeconds(instant: Instant, timeZone: string): string {
  return format(toDate(instant), 'HH:mm:ss', { in: tz(timeZone) });
}

/** `UTC 2026-11-21 01:00`: the instant in UTC, labelled. */
export function formatUtc(instant: Instant): string {
  return `UTC ${formatInZone(instant, 'UTC')}`;
}

/** The instant on the site's clock with UTC: `2026-11-21 02:00 (Europe/Berlin), UTC 2026-11-21 01:00`; UTC said once. */
export function formatInZoneWithUtc(instant: Instant, timeZone: string): string {
  if (isUtcClock(timeZone)) return formatUtc(instant);
  return `${formatInZone(instant, timeZone)} (${zoneLabel(timeZone)}), ${formatUtc(instant)}`;
}

/** The operator's clock: the browser's zone, else UTC. */
export const operatorTimeZone = (): string =>
  Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * A short time for a dense panel: `22:30 (Europe/Berlin), UTC 21:30`; each clock's date comes
 * first (`27 Nov 22:30`) when it is not `today`'s date on that clock.
 */
export function formatClockWithUtc(instant: Instant, timeZone: string, today: Instant): string {
  const on = (zone: string) => {
    const sameDay =
      format(toDate(instant), 'yyyy-MM-dd', { in: tz(zone) }) ===
      format(toDate(today), 'yyyy-MM-dd', { in: tz(zone) });
    return format(toDate(instant), sameDay ? 'HH:mm' : 'd MMM HH:mm', { in: tz(zone) });
  };
  if (isUtcClock(timeZone)) return `UTC ${on('UTC')}`;
  return `${on(timeZone)} (${zoneLabel(timeZone)}), UTC ${on('UTC')}`;
}

/** `UTC+10:30`: the offset of `timeZone` at that instant. */
export function utcOffsetLabel(instant: Instant, timeZone: string): string {
  return `UTC${format(toDate(instant), 'xxx', { in: tz(timeZone) })}`;
}

/** The value of an `<input type="datetime-local">` showing the instant on the site's clock. */
export function toDateTimeLocalValue(instant: Instant, timeZone: string): string {
  return format(toDate(instant), INPUT_PATTERN, { in: tz(timeZone) });
}

/** `skipped`: read as the same distance after the jump; `repeated`: the later occurrence (@date-fns/tz's). */
export type LocalTimeFit = 'exact' | 'skipped' | 'repeated';

export interface ResolvedLocalTime {
  instant: Date;
  fit: LocalTimeFit;
}

/** Reads `yyyy-MM-ddTHH:mm` as a wall-clock time in `timeZone`; `null` otherwise, impossible dates too. */
export function parseDateTimeLocal(value: string, timeZone: string): ResolvedLocalTime | null {
  const match = INPUT_VALUE.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const zoned = new TZDate(year, month - 1, day, hour, minute, timeZone);
  if (!isValid(zoned)) return null;
  const instant = new Date(zoned.getTime());
  const calendarDay = new TZDate(year, month - 1, day, 12, 0, timeZone);
  if (toDateTimeLocalValue(calendarDay, timeZone).slice(0, 10) !== value.slice(0, 10)) return null;

  if (toDateTimeLocalValue(instant, timeZone) !== value) return { instant, fit: 'skipped' };
  const nearbyChanges = tzScan(timeZone, {
    start: addDays(instant, -1),
    end: addDays(instant, 1),
  });
  const repeated = nearbyChanges.some((change) => {
    if (change.change >= 0) return false;
    const other = addMinutes(instant, change.change);
    return other.getTime() !== instant.getTime() && toDateTimeLocalValue(other, timeZone) === value;
  });
  return { instant, fit: repeated ? 'repeated' : 'exact' };
}

const FIVE_MINUTES_MS = 5 * 60_000;

/** The form's proposed window: one hour from the next 5-minute boundary after now + 5 min (valid on every site: offsets are multiples of 15). */
export function defaultCommandWindow(nowMs: number): { start: Date; end: Date } {
  const nextBoundaryMs = (Math.floor(nowMs / FIVE_MINUTES_MS) + 1) * FIVE_MINUTES_MS;
  const start = addMinutes(new Date(nextBoundaryMs), 5);
  return { start, end: addHours(start, 1) };
}

/** A window on the site's clock: `2026-11-21 11:30–12:30`, across days `2026-11-21 23:00 – 2026-11-22 01:00`. */
export function formatWindowInZone(start: Instant, end: Instant, timeZone: string): string {
  const from = formatInZone(start, timeZone);
  const to = formatInZone(end, timeZone);
  return from.slice(0, 10) === to.slice(0, 10) ? `${from}–${to.slice(11)}` : `${from} – ${to}`;
}

/** The same window in UTC, labelled: `UTC 2026-11-21 01:00–02:00`. */
export function formatWindowUtc(start: Instant, end: Instant): string {
  return `UTC ${formatWindowInZone(start, end, 'UTC')}`;
}

/** A window on the site's clock with UTC: `… (Europe/Berlin), UTC 2026-11-21 10:30–11:30`. */
export function formatWindowInZoneWithUtc(start: Instant, end: Instant, timeZone: string): string {
  if (isUtcClock(timeZone)) return formatWindowUtc(start, end);
  return `${formatWindowInZone(start, end, timeZone)} (${zoneLabel(timeZone)}), ${formatWindowUtc(start, end)}`;
}

/** `2026-11-21T01:00:00Z`: as the wire carries it (docs/upstream.md, Commands), whole seconds. */
export function toUtcTimestamp(instant: Instant): string {
  return toDate(instant)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
}

const InstantSchema = z.iso.datetime({ offset: true });

/** Reads an ISO instant with its zone designator; `null` otherwise, `''` included. */
export function parseInstant(value: string): Date | null {
  return InstantSchema.safeParse(value).success ? new Date(value) : null;
}

/** A change of a zone's UTC offset: when, its direction, the offsets before and after (`UTC+01:00`). */
export interface ClockChange {
  at: Date;
  forward: boolean;
  from: string;
  to: string;
}

/** The offset change on the site's calendar day of `instant`, or `null`: a form warns of skipped or doubled times. */
export function clockChangeOnDay(instant: Instant, timeZone: string): ClockChange | null {
  const day = formatInZone(instant, timeZone).slice(0, 10);
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const start = new TZDate(year, month - 1, date, 0, 0, timeZone);
  const [change] = tzScan(timeZone, { start, end: addDays(start, 1) });
  if (!change) return null;
  return {
    at: change.date,
    forward: change.change > 0,
    from: utcOffsetLabel(addMinutes(change.date, -1), timeZone),
    to: utcOffsetLabel(change.date, timeZone),
  };
}

const LENGTH_MINUTE_MS = 60_000;
const LENGTH_DAY_MS = 24 * 60 * LENGTH_MINUTE_MS;

/** A length of time to the minute (a window, how long a battery lasts): `45 min`, `1 h 25 min`, `2 days 3 h`. */
export function windowLengthWords(durationMs: number): string {
  const minutesTotal = Math.round(durationMs / LENGTH_MINUTE_MS);
  const days = Math.floor(minutesTotal / (LENGTH_DAY_MS / LENGTH_MINUTE_MS));
  const hours = Math.floor((minutesTotal % (LENGTH_DAY_MS / LENGTH_MINUTE_MS)) / 60);
  const minutes = minutesTotal % 60;
  const parts = [
    days ? `${days} ${days === 1 ? 'day' : 'days'}` : '',
    hours ? `${hours} h` : '',
    minutes ? `${minutes} min` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(' ') : '0 min';
}
