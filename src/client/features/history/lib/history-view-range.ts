import type { HistoryQuery } from '../../../../domain/history.ts';
import { historyRangeProblem } from '../../../../domain/history.ts';
import { parseInstant } from '../../../lib/time.ts';
import { HISTORY_PRESET_MS, type HistorySearch } from './history-search.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * A range the view may query, or the reason it may not (docs/upstream.md, History: at most 30
 * days).
 */
export type ResolvedHistoryRange =
  | { ok: true; startMs: number; endMs: number; query: HistoryQuery }
  | { ok: false; problem: string };

/** `30 days`, `30 days 1 h`, `29 days 23 h`, `45 min`: a range length an operator can check. */
export function describeDuration(durationMs: number): string {
  const days = Math.floor(durationMs / DAY_MS);
  const hours = Math.floor((durationMs % DAY_MS) / HOUR_MS);
  const minutes = Math.floor((durationMs % HOUR_MS) / MINUTE_MS);
  const seconds = Math.floor((durationMs % MINUTE_MS) / 1000);
  const parts = [
    days ? `${days} ${days === 1 ? 'day' : 'days'}` : '',
    hours ? `${hours} h` : '',
    minutes ? `${minutes} min` : '',
    seconds ? `${seconds} s` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(' ') : '0 s';
}

/** `new Date(ms).toISOString()` without the milliseconds, as the wire carries instants. */
const toWire = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Checks a range against docs/upstream.md, History (end after start, at most exactly 30 days: 30
 * days is allowed, 30 days and 1 s is not) and words the refusal with the range's real length,
 * which differs from its count of calendar days when a DST change falls inside it.
 */
export function checkHistoryRange(startMs: number, endMs: number): ResolvedHistoryRange {
  const problem = historyRangeProblem(startMs, endMs);
  if (problem === null)
    return {
      ok: true,
      startMs,
      endMs,
      query: { startTime: toWire(startMs), endTime: toWire(endMs) },
    };
  if (!(endMs > startMs)) return { ok: false, problem: 'The end must be after the start.' };
  return {
    ok: false,
    problem: `This range is ${describeDuration(endMs - startMs)} long; ${problem}.`,
  };
}

/**
 * The range a view state asks for. A preset ends at `nowMs` rounded up to the minute, so the
 * query (and its cache entry) stays the same while the operator sorts and pages; a custom range
 * is read from its UTC `from` and `to`.
 */
export function resolveHistoryRange(search: HistorySearch, nowMs: number): ResolvedHistoryRange {
  if (search.range !== 'custom') {
    const endMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS;
    return checkHistoryRange(endMs - HISTORY_PRESET_MS[search.range], endMs);
  }
  if (search.from === undefined || search.to === undefined)
    return { ok: false, problem: 'Choose a start and an end for the custom range.' };
  return checkHistoryRange(Date.parse(search.from), Date.parse(search.to));
}

/** A custom range from its two date-time fields, as UTC instants for the URL. */
export type CustomRangeInput =
  { ok: true; from: string; to: string } | { ok: false; problem: string };

/**
 * Reads the custom range's two date-time fields (ISO UTC instants, `''` while a field is empty or
 * partly typed; the fields read the site's wall clock, across a clock change too) and refuses a
 * range over 30 days (docs/upstream.md, History), measured in real time, not in calendar days.
 */
export function customRangeFromFields(fromValue: string, toValue: string): CustomRangeInput {
  const from = parseInstant(fromValue);
  if (!from) return { ok: false, problem: 'Enter the start as a date and a time.' };
  const to = parseInstant(toValue);
  if (!to) return { ok: false, problem: 'Enter the end as a date and a time.' };
  const checked = checkHistoryRange(from.getTime(), to.getTime());
  if (!checked.ok) return checked;
  return { ok: true, from: checked.query.startTime, to: checked.query.endTime };
}
