import { TZDate, tz, tzScan } from '@date-fns/tz';
import { addDays, addHours, addMinutes, format, isValid } from 'date-fns';
import { z } from 'zod';
import { FIXED_OFFSET_PATTERN, offsetMinutes } from '../../domain/site-clock.ts';

/**
 * Effective windows are absolute UTC instants on the wire (docs/upstream.md, Commands); operators
 * think in the site's wall clock. Every conversion between the two goes through @date-fns/tz so
 * half-hour zones (Australia/Adelaide) and 23/25-hour DST days (Europe/Berlin) stay correct.
 */

type Instant = Date | string | number;

const DISPLAY_PATTERN = 'yyyy-MM-dd HH:mm';
const INPUT_PATTERN = "yyyy-MM-dd'T'HH:mm";
const INPUT_VALUE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

const toDate = (instant: Instant): Date => (instant instanceof Date ? instant : new Date(instant));

/**
 * True when the runtime knows `timeZone`: an IANA zone, `UTC`, or a fixed offset such as
 * `+10:00` (`Intl` takes offsets since ECMA-402 2024; a browser that does not is shown UTC).
 */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * True when `timeZone` is a fixed UTC offset such as `+10:00` (a site on the vendor's offset,
 * docs/decisions/006, section 6) rather than an IANA name.
 */
export function isFixedOffset(timeZone: string): boolean {
  return FIXED_OFFSET_PATTERN.test(timeZone);
}

/**
 * The zone as operators read it: an IANA name as it is (`Europe/Berlin`), a fixed offset with
 * `UTC` before it (`UTC+10:00`), since a bare `+10:00` beside a time reads as arithmetic.
 */
export function zoneLabel(timeZone: string): string {
  return isFixedOffset(timeZone) ? `UTC${timeZone}` : timeZone;
}

/** True when the zone's clock is UTC itself: `UTC`, or the fixed offset `+00:00`. */
function isUtcClock(timeZone: string): boolean {
  return timeZone === 'UTC' || (isFixedOffset(timeZone) && offsetMinutes(timeZone) === 0);
}

/** `2026-11-21 11:30`: the instant on the wall clock of `timeZone`. */
export function formatInZone(instant: Instant, timeZone: string): string {
  return format(toDate(instant), DISPLAY_PATTERN, { in: tz(timeZone) });
}

/**
 * The time of day with seconds on the wall clock of `timeZone`: `14:05:20`. A queued change goes
 * to the second (the budget of upstream calls frees slots to the second).
 */
export function clockTimeWithSeconds(instant: Instant, timeZone: string): string {
  return format(toDate(instant), 'HH:mm:ss', { in: tz(timeZone) });
}

/** `UTC 2026-11-21 01:00`: the instant in UTC, labelled. */
export function formatUtc(instant: Instant): string {
  return `UTC ${formatInZone(instant, 'UTC')}`;
}

/**
 * The instant on the site's clock with UTC at hand: `2026-11-21 02:00 (Europe/Berlin), UTC
 * 2026-11-21 01:00`, or on a fixed offset `2026-11-21 11:00 (UTC+10:00), UTC 2026-11-21 01:00`;
 * a site on UTC (or a set of sites in several zones, shown in UTC) says it once:
 * `UTC 2026-11-21 01:00`.
 */
export function formatInZoneWithUtc(instant: Instant, timeZone: string): string {
  if (isUtcClock(timeZone)) return formatUtc(instant);
  return `${formatInZone(instant, timeZone)} (${zoneLabel(timeZone)}), ${formatUtc(instant)}`;
}

/** `UTC+10:30`: the offset of `timeZone` at that instant. */
export function utcOffsetLabel(instant: Instant, timeZone: string): string {
  return `UTC${format(toDate(instant), 'xxx', { in: tz(timeZone) })}`;
}

/** The value of an `<input type="datetime-local">` showing the instant on the site's clock. */
export function toDateTimeLocalValue(instant: Instant, timeZone: string): string {
  return format(toDate(instant), INPUT_PATTERN, { in: tz(timeZone) });
}

/**
 * How a wall-clock time maps to an instant: `exact` once, `skipped` when the clocks jumped over
 * it (spring forward; read as the same distance after the jump), `repeated` when it happens twice
 * (fall back; read as the later occurrence, the one @date-fns/tz picks).
 */
export type LocalTimeFit = 'exact' | 'skipped' | 'repeated';

export interface ResolvedLocalTime {
  instant: Date;
  fit: LocalTimeFit;
}

/**
 * Reads a `datetime-local` value (`yyyy-MM-ddTHH:mm`) as a wall-clock time in `timeZone`.
 * Returns `null` for anything else, including impossible dates such as `2026-02-30T10:00`.
 */
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

/**
 * The window the command form proposes: start at the next 5-minute boundary after `nowMs` plus
 * 5 minutes (time to review before it begins), one hour long. Every UTC offset in use is a
 * multiple of 15 minutes, so 5-minute boundaries in UTC are 5-minute boundaries on every site.
 */
export function defaultCommandWindow(nowMs: number): { start: Date; end: Date } {
  const nextBoundaryMs = (Math.floor(nowMs / FIVE_MINUTES_MS) + 1) * FIVE_MINUTES_MS;
  const start = addMinutes(new Date(nextBoundaryMs), 5);
  return { start, end: addHours(start, 1) };
}

/**
 * A window on the site's clock, short when it stays within one day: `2026-11-21 11:30–12:30`,
 * else `2026-11-21 23:00 – 2026-11-22 01:00`.
 */
export function formatWindowInZone(start: Instant, end: Instant, timeZone: string): string {
  const from = formatInZone(start, timeZone);
  const to = formatInZone(end, timeZone);
  return from.slice(0, 10) === to.slice(0, 10) ? `${from}–${to.slice(11)}` : `${from} – ${to}`;
}

/** The same window in UTC, labelled: `UTC 2026-11-21 01:00–02:00`. */
export function formatWindowUtc(start: Instant, end: Instant): string {
  return `UTC ${formatWindowInZone(start, end, 'UTC')}`;
}

/**
 * A window on the site's clock with UTC at hand: `2026-11-21 11:30–12:30 (Europe/Berlin), UTC
 * 2026-11-21 10:30–11:30`; in UTC said once, as {@link formatWindowUtc}.
 */
export function formatWindowInZoneWithUtc(start: Instant, end: Instant, timeZone: string): string {
  if (isUtcClock(timeZone)) return formatWindowUtc(start, end);
  return `${formatWindowInZone(start, end, timeZone)} (${zoneLabel(timeZone)}), ${formatWindowUtc(start, end)}`;
}

/**
 * `2026-11-21T01:00:00Z`: an instant as the wire carries it (docs/upstream.md, Commands), whole
 * seconds.
 */
export function toUtcTimestamp(instant: Instant): string {
  return toDate(instant)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
}

const InstantSchema = z.iso.datetime({ offset: true });

/**
 * Reads an ISO 8601 instant with its zone designator (`2026-11-21T01:00:00Z`, or with an offset
 * such as `+10:30`), as a date-time field gives it; `null` for anything else, `''` included.
 */
export function parseInstant(value: string): Date | null {
  return InstantSchema.safeParse(value).success ? new Date(value) : null;
}

/** A change of a zone's UTC offset: when, its direction, the offsets before and after (`UTC+01:00`). */
export interface ClockChange {
  at: Date;
  /** True when the clocks go forward (an hour of wall-clock time is skipped). */
  forward: boolean;
  from: string;
  to: string;
}

/**
 * The change of `timeZone`'s offset during the site's calendar day that holds `instant` (the
 * spring-forward or fall-back day), or `null` on an ordinary day, so a form can say that a time
 * near it is skipped or happens twice.
 */
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
