import type { HistoryQuery } from '#domain/history.ts';
import { historyRangeProblem } from '#domain/history.ts';
import { parseInstant } from '#client/lib/time.ts';
import { HISTORY_PRESET_MS, type HistorySearch } from './history-search.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A range the view may query, or why not (docs/upstream.md, History: at most 30 days). */
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

const toWire = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Checks a range (end after start, at most exactly 30 days: docs/upstream.md, History), worded with its real length (DST). */
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

/** The range a view state asks for; a preset ends at now rounded up to the minute, so its cache entry holds while sorting and paging. */
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

/** Reads the custom range's two fields (ISO UTC, `''` while incomplete) and refuses over 30 days of real time. */
export function customRangeFromFields(fromValue: string, toValue: string): CustomRangeInput {
  const from = parseInstant(fromValue);
  if (!from) return { ok: false, problem: 'Enter the start as a date and a time.' };
  const to = parseInstant(toValue);
  if (!to) return { ok: false, problem: 'Enter the end as a date and a time.' };
  const checked = checkHistoryRange(from.getTime(), to.getTime());
  if (!checked.ok) return checked;
  return { ok: true, from: checked.query.startTime, to: checked.query.endTime };
}
