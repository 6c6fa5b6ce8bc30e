import { tz } from '@date-fns/tz';
import { eachDayOfInterval, eachHourOfInterval, eachMinuteOfInterval, format } from 'date-fns';

export interface ValueAxis {
  domain: [number, number];
  ticks: number[];
}

export interface ValueAxisOptions {
  /** Keep 0 inside the domain (power: the charge/discharge boundary must show). */
  includeZero?: boolean;
  /** Only whole-number ticks (counts, watts: power controls are integers, docs/upstream.md). */
  integer?: boolean;
  /** At most this many intervals between ticks; 5 gives at most 6 ticks, 8 with padding. */
  maxIntervals?: number;
}

const NICE_FRACTIONS = [1, 2, 2.5, 5, 10];

/** The smallest 1, 2, 2.5 or 5 times a power of ten that is at least `raw`. */
function niceStep(raw: number, integer: boolean): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = (NICE_FRACTIONS.find((f) => f * power >= raw - 1e-12) ?? 10) * power;
  if (!integer) return step;
  // 2.5 is not a whole step below 10; 0.5 rounds up to 1.
  return step < 1 ? 1 : Number.isInteger(step) ? step : Math.ceil(step);
}

const decimalsOf = (step: number) => Math.max(0, -Math.floor(Math.log10(step)) + 1);

/**
 * A padded domain with "nice" ticks (1, 2, 2.5 or 5 × 10ⁿ apart), unique; equal values still get
 * a domain, and an edge value one more step. Throws on no values or a non-finite one.
 */
export function niceValueAxis(
  values: readonly number[],
  options: ValueAxisOptions = {},
): ValueAxis {
  const { includeZero = false, integer = false, maxIntervals = 5 } = options;
  if (values.length === 0) throw new RangeError('niceValueAxis needs at least one value');
  if (!values.every(Number.isFinite)) throw new RangeError('niceValueAxis needs finite values');
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (includeZero) {
    low = Math.min(low, 0);
    high = Math.max(high, 0);
  }
  if (low === high) {
    const pad = low === 0 ? 1 : Math.abs(low) / 2;
    low -= pad;
    high += pad;
  }
  const step = niceStep((high - low) / maxIntervals, integer);
  let first = Math.floor(low / step) * step;
  let last = Math.ceil(high / step) * step;
  if (first === low && low !== 0 && low === Math.min(...values)) first -= step;
  if (last === high && high !== 0 && high === Math.max(...values)) last += step;
  const decimals = decimalsOf(step);
  const ticks: number[] = [];
  for (let i = 0; first + i * step <= last + step / 1e6; i += 1)
    ticks.push(Number((first + i * step).toFixed(decimals)) || 0);
  return { domain: [ticks[0] ?? first, ticks.at(-1) ?? last], ticks };
}

/** Ticks of a time axis on the site's clock: each at a whole minute, hour or midnight there. */
export interface SiteTimeTicks {
  ticksMs: number[];
  /** Every `step` minutes, hours, or days at midnight. */
  unit: 'minute' | 'hour' | 'day';
  step: number;
}

const MINUTE_STEPS = [1, 2, 5, 10, 15, 30];
/** Longest range minute ticks are looked for on, ms: beyond it they never fit anyway. */
const MINUTE_TICKS_MAX_RANGE_MS = 12 * 3_600_000;
const HOUR_STEPS = [1, 2, 3, 6, 12];
const DAY_STEPS = [1, 2, 3, 7, 14];
/** Least room between two tick labels, in px. */
export const TICK_GAP_PX = 10;

/**
 * Ticks on `timeZone`'s wall clock whatever the browser's: the finest step whose labels stay
 * {@link TICK_GAP_PX} apart on `plotWidthPx`; a DST day keeps its ticks on the site's clock.
 * `finest: 'minute'` allows minute ticks on ranges up to 12 h.
 */
export function siteTimeTicks(
  startMs: number,
  endMs: number,
  timeZone: string,
  plotWidthPx: number,
  labelWidthPx: (label: string) => number,
  finest: 'minute' | 'hour' = 'hour',
): SiteTimeTicks {
  const inZone = tz(timeZone);
  const interval = { start: startMs, end: endMs };
  const pxPerMs = plotWidthPx / (endMs - startMs);
  const fits = (candidate: SiteTimeTicks) => {
    const { ticksMs, unit } = candidate;
    return ticksMs.every((ms, index) => {
      const next = ticksMs[index + 1];
      if (next === undefined) return true;
      const room = (next - ms) * pxPerMs;
      const halves =
        (labelWidthPx(formatSiteTimeTick(ms, timeZone, unit)) +
          labelWidthPx(formatSiteTimeTick(next, timeZone, unit))) /
        2;
      return room >= halves + TICK_GAP_PX;
    });
  };
  if (finest === 'minute' && endMs - startMs <= MINUTE_TICKS_MAX_RANGE_MS) {
    const minutes = eachMinuteOfInterval(interval, { in: inZone });
    for (const step of MINUTE_STEPS) {
      const candidate = withinRange(
        'minute',
        step,
        minutes.filter((minute) => minute.getMinutes() % step === 0),
        startMs,
        endMs,
      );
      if (fits(candidate)) return candidate;
    }
  }
  const hours = eachHourOfInterval(interval, { in: inZone });
  for (const step of HOUR_STEPS) {
    const candidate = withinRange(
      'hour',
      step,
      hours.filter((hour) => hour.getHours() % step === 0),
      startMs,
      endMs,
    );
    if (fits(candidate)) return candidate;
  }
  const days = eachDayOfInterval(interval, { in: inZone });
  const candidates = DAY_STEPS.map((step) =>
    withinRange(
      'day',
      step,
      days.filter((_, index) => index % step === 0),
      startMs,
      endMs,
    ),
  );
  // A range is at most 30 days (docs/upstream.md, History), so the widest step is the last resort.
  return candidates.find(fits) ?? (candidates.at(-1) as SiteTimeTicks);
}

function withinRange(
  unit: SiteTimeTicks['unit'],
  step: number,
  ticks: Date[],
  startMs: number,
  endMs: number,
): SiteTimeTicks {
  const ticksMs = [...new Set(ticks.map((tick) => tick.getTime()))].filter(
    (ms) => ms >= startMs && ms <= endMs,
  );
  return { unit, step, ticksMs };
}

/** A tick's label on the site's clock: `15:00` on minute/hour axes, `24 Nov` at midnight. */
export function formatSiteTimeTick(ms: number, timeZone: string, unit: SiteTimeTicks['unit']) {
  const inZone = tz(timeZone);
  if (unit === 'day' || format(ms, 'HH:mm', { in: inZone }) === '00:00')
    return format(ms, 'd MMM', { in: inZone });
  return format(ms, 'HH:mm', { in: inZone });
}

/** How many category labels to skip between shown ones (recharts' `interval`) to keep them {@link TICK_GAP_PX} apart. */
export function categoryTickInterval(count: number, plotWidthPx: number, labelWidthPx: number) {
  const bandPx = plotWidthPx / Math.max(1, count);
  return Math.max(0, Math.ceil((labelWidthPx + TICK_GAP_PX) / bandPx) - 1);
}
