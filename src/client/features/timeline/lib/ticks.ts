import { TZDate } from '@date-fns/tz';
import {
  addDays,
  addMonths,
  addWeeks,
  format,
  startOfDay,
  startOfHour,
  startOfMonth,
  startOfWeek,
} from 'date-fns';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A tick step of the time axis; `approxMs` only ranks steps, local days may last 23 or 25 h. */
export interface TickStep {
  unit: 'minute' | 'hour' | 'day' | 'week' | 'month';
  count: number;
  approxMs: number;
}

/** Steps of one day, one week (from Monday) and one month; a month ranks as its longest. */
export const DAY_STEP: TickStep = { unit: 'day', count: 1, approxMs: DAY_MS };
export const WEEK_STEP: TickStep = { unit: 'week', count: 1, approxMs: 7 * DAY_MS };
export const MONTH_STEP: TickStep = { unit: 'month', count: 1, approxMs: 31 * DAY_MS };

const TICK_STEPS: readonly TickStep[] = [
  { unit: 'minute', count: 5, approxMs: 5 * MINUTE_MS },
  { unit: 'minute', count: 15, approxMs: 15 * MINUTE_MS },
  { unit: 'minute', count: 30, approxMs: 30 * MINUTE_MS },
  { unit: 'hour', count: 1, approxMs: HOUR_MS },
  { unit: 'hour', count: 2, approxMs: 2 * HOUR_MS },
  { unit: 'hour', count: 3, approxMs: 3 * HOUR_MS },
  { unit: 'hour', count: 6, approxMs: 6 * HOUR_MS },
  { unit: 'hour', count: 12, approxMs: 12 * HOUR_MS },
  DAY_STEP,
  WEEK_STEP,
];

/** The finest step whose ticks stay at least `minSpacingPx` apart at `msPerPx`. */
export function chooseTickStep(msPerPx: number, minSpacingPx = 70): TickStep {
  const minMs = msPerPx * minSpacingPx;
  return TICK_STEPS.find((step) => step.approxMs >= minMs) ?? WEEK_STEP;
}

/** One axis tick: an instant, its label in the zone's wall clock, and whether it starts a day. */
export interface Tick {
  ms: number;
  label: string;
  dayStart: boolean;
}

/**
 * Ticks in `[startMs, endMs]` on `timeZone`'s wall clock (local hours, local midnights, so DST days
 * have 23 or 25 hours), labelled `HH:mm`, `EEE d MMM`, or `pattern`. Uses @date-fns/tz.
 */
export function axisTicks(
  startMs: number,
  endMs: number,
  step: TickStep,
  timeZone: string,
  pattern?: string,
): Tick[] {
  const ticks: Tick[] = [];
  const first = new TZDate(startMs, timeZone);
  const push = (date: TZDate, dayStart: boolean, label: string) => {
    const ms = date.getTime();
    if (ms >= startMs && ms <= endMs)
      ticks.push({ ms, label: pattern ? format(date, pattern) : label, dayStart });
  };
  if (step.unit === 'week' || step.unit === 'day' || step.unit === 'month') {
    const next = { day: addDays, week: addWeeks, month: addMonths }[step.unit];
    let day =
      step.unit === 'week'
        ? startOfWeek(first, { weekStartsOn: 1 })
        : step.unit === 'month'
          ? startOfMonth(first)
          : startOfDay(first);
    while (day.getTime() <= endMs) {
      push(day, true, format(day, 'EEE d MMM'));
      day = next(day, 1);
    }
    return ticks;
  }
  const stepMs = step.unit === 'minute' ? step.count * MINUTE_MS : HOUR_MS;
  // Whole-hour steps from a local hour stay on local boundaries: DST shifts by whole hours.
  for (let ms = startOfHour(first).getTime(); ms <= endMs; ms += stepMs) {
    const date = new TZDate(ms, timeZone);
    const hour = date.getHours();
    if (step.unit === 'hour' && hour % step.count !== 0) continue;
    const dayStart = hour === 0 && date.getMinutes() === 0;
    push(date, dayStart, dayStart ? format(date, 'EEE d MMM') : format(date, 'HH:mm'));
  }
  return ticks;
}

const tickCache = new Map<string, Tick[]>();

/** {@link axisTicks} cached per zone, step and span bucket, so panning does not reformat dates. */
export function cachedAxisTicks(
  ...[startMs, endMs, step, timeZone, pattern]: Parameters<typeof axisTicks>
): Tick[] {
  const bucketMs = Math.max(DAY_MS, endMs - startMs);
  const bucket = Math.floor(startMs / bucketMs);
  const key = `${timeZone}|${step.unit}${step.count}|${pattern ?? ''}|${bucketMs}|${bucket}`;
  let ticks = tickCache.get(key);
  if (!ticks) {
    ticks = axisTicks(
      bucket * bucketMs - step.approxMs,
      (bucket + 2) * bucketMs,
      step,
      timeZone,
      pattern,
    );
    if (tickCache.size > 64) tickCache.clear();
    tickCache.set(key, ticks);
  }
  return ticks;
}
