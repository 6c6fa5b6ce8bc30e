import type { CommandVerdictRecord } from '#domain/verdict-answer.ts';
import { VERDICT_WORDS, VERDICTS, type Verdict } from '#domain/verdict.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { formatWindowInZone, formatWindowUtc, zoneLabel } from '#client/lib/time.ts';
import { formatScaledBatteryPower, type PowerScale } from './power-scale.ts';
import { coverageWords, energyWords } from './verdict-words.ts';

/**
 * What the power and state of charge chart of a device draws from its verdicts
 * (docs/verification.md): the measured samples of each judged window, the commanded power over
 * it, each command's window as a band; all in time order.
 */

/** The chart of a device page spans the windows that ended within a day of the newest one's end. */
export const NEWEST_SPAN_MS = 24 * 3_600_000;

/** Share of the span added before and after it, so a band's edge never sits on the plot's. */
const RANGE_PAD_SHARE = 0.04;

const startOf = (record: CommandVerdictRecord) => Date.parse(record.startTime);
const endOf = (record: CommandVerdictRecord) => Date.parse(record.endTime);

/**
 * The verdicts the chart shows, oldest first: the one of `focusCommandId` when given and known,
 * else those whose window ended within {@link NEWEST_SPAN_MS} of the newest end (a day of
 * commands: windows days apart would leave each a sliver).
 */
export function recordsForChart(
  records: readonly CommandVerdictRecord[],
  focusCommandId?: string | null,
): CommandVerdictRecord[] {
  const focused = records.find((record) => record.commandId === focusCommandId);
  if (focused) return [focused];
  const newestEndMs = Math.max(...records.map(endOf));
  return records
    .filter((record) => endOf(record) >= newestEndMs - NEWEST_SPAN_MS)
    .sort((a, b) => startOf(a) - startOf(b));
}

/**
 * The time axis's range over the records' windows, ms, padded by 4% of the span (at least a
 * sampling period) on both sides. Throws RangeError for no records.
 */
export function chartRangeOf(records: readonly CommandVerdictRecord[]): {
  startMs: number;
  endMs: number;
} {
  if (records.length === 0) throw new RangeError('a chart range needs at least one window');
  const fromMs = Math.min(...records.map(startOf));
  const toMs = Math.max(...records.map(endOf));
  const periodMs = Math.min(...records.map((record) => record.samplingPeriodMs));
  const padMs = Math.max(periodMs, (toMs - fromMs) * RANGE_PAD_SHARE);
  return { startMs: fromMs - padMs, endMs: toMs + padMs };
}

/** A point of the measured lines; `null` values break the line (between windows, over a gap). */
export interface MeasuredPoint {
  tMs: number;
  batteryPowerW: number | null;
  socPercent: number | null;
}

/** A line is broken where two samples are further apart than this many sampling periods. */
const GAP_PERIODS = 1.5;

/**
 * The measured samples of the records' windows in time order, a break (`null`) after each window
 * and wherever samples are missing for more than 1.5 sampling periods, so a line never joins two
 * windows or bridges a time the device was silent.
 */
export function measuredPoints(records: readonly CommandVerdictRecord[]): MeasuredPoint[] {
  const points: MeasuredPoint[] = [];
  for (const record of [...records].sort((a, b) => startOf(a) - startOf(b))) {
    const columns = record.samples;
    if (!columns || columns.atMs.length === 0) continue;
    let previousMs: number | undefined;
    columns.atMs.forEach((atMs, index) => {
      if (previousMs !== undefined && atMs - previousMs > GAP_PERIODS * record.samplingPeriodMs)
        points.push({ tMs: (atMs + previousMs) / 2, batteryPowerW: null, socPercent: null });
      points.push({
        tMs: atMs,
        batteryPowerW: columns.batteryPowerW[index] ?? null,
        socPercent: columns.socPercent[index] ?? null,
      });
      previousMs = atMs;
    });
    if (previousMs !== undefined)
      points.push({ tMs: previousMs + 1, batteryPowerW: null, socPercent: null });
  }
  return points;
}

/** A point of the commanded step line; `null` breaks it between windows. */
export interface CommandedPoint {
  tMs: number;
  commandedW: number | null;
}

/**
 * The commanded battery power over each judged window (from its start, or later start, to its
 * end, or earlier end), level, broken between windows; a command of limits only has none.
 */
export function commandedPoints(records: readonly CommandVerdictRecord[]): CommandedPoint[] {
  return [...records]
    .sort((a, b) => startOf(a) - startOf(b))
    .flatMap((record) => {
      const target = record.powerControl.targetBatteryPowerW;
      if (target === undefined) return [];
      const fromMs = Date.parse(record.judgedFrom);
      const toMs = Date.parse(record.judgedTo);
      return [
        { tMs: fromMs, commandedW: target },
        { tMs: toMs, commandedW: target },
        { tMs: toMs + 1, commandedW: null },
      ];
    });
}

/** Mean measured battery power of a window's samples, W; `undefined` without samples. */
export function meanBatteryPowerW(record: CommandVerdictRecord): number | undefined {
  const values = record.samples?.batteryPowerW ?? [];
  return values.length === 0 ? undefined : values.reduce((sum, w) => sum + w, 0) / values.length;
}

/** State of charge at a window's first and last sample, %; `undefined` without samples. */
export function socSpanPercent(
  record: CommandVerdictRecord,
): { fromPercent: number; toPercent: number } | undefined {
  const values = record.samples?.socPercent ?? [];
  const first = values[0];
  const last = values.at(-1);
  return first === undefined || last === undefined
    ? undefined
    : { fromPercent: first, toPercent: last };
}

const windowsWord = (count: number) =>
  count === 1 ? '1 command window' : `${count} command windows`;
const roundPercent = (percent: number) => `${Number(percent.toFixed(1))}%`;

/**
 * The chart in sentences, its text alternative: how many windows over which span on the site's
 * clock, their verdicts, the measured battery power's range (as discharge or charge) and the
 * state of charge's.
 */
export function powerSocSummary(
  records: readonly CommandVerdictRecord[],
  timeZone: string,
  scale: PowerScale,
): string {
  if (records.length === 0) return 'No command window to chart.';
  const fromMs = Math.min(...records.map(startOf));
  const toMs = Math.max(...records.map(endOf));
  const span = formatWindowInZone(fromMs, toMs, timeZone).replace(/–| – /, ' to ');
  const counts = VERDICTS.flatMap((verdict: Verdict) => {
    const count = records.filter((record) => record.result.verdict === verdict).length;
    return count > 0 ? [`${count} ${VERDICT_WORDS[verdict].label.toLowerCase()}`] : [];
  });
  const powers = records.flatMap((record) => record.samples?.batteryPowerW ?? []);
  const socs = records.flatMap((record) => record.samples?.socPercent ?? []);
  const measured =
    powers.length === 0
      ? 'No sample was measured in these windows.'
      : `Measured battery power from ${formatScaledBatteryPower(Math.min(...powers), scale)} to ${formatScaledBatteryPower(Math.max(...powers), scale)}; state of charge from ${roundPercent(Math.min(...socs))} to ${roundPercent(Math.max(...socs))}.`;
  return `${windowsWord(records.length)} from ${span} (${zoneLabel(timeZone)}): ${counts.join(', ')}. ${measured}`;
}

/** One window in lines, for its tooltip: site clock, UTC, power control, verdict, energy, share measured. */
export function verdictWindowWords(record: CommandVerdictRecord, timeZone: string): string[] {
  const judged =
    record.judgedFrom !== record.startTime || record.judgedTo !== record.endTime
      ? [
          `Judged ${formatWindowInZone(record.judgedFrom, record.judgedTo, timeZone)} (the effective window)`,
        ]
      : [];
  return [
    `${formatWindowInZone(record.startTime, record.endTime, timeZone)} (${zoneLabel(timeZone)})`,
    formatWindowUtc(record.startTime, record.endTime),
    ...judged,
    `Commanded: ${describePowerControl(record.powerControl)}`,
    `Verdict: ${VERDICT_WORDS[record.result.verdict].label}`,
    energyWords(record.result),
    coverageWords(record.result),
  ];
}
