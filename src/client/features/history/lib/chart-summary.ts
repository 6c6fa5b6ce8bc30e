import type { StatusRecord } from '#domain/command.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '#domain/words.ts';
import {
  formatPropertyValueInWords,
  POWER_CONTROL_WORDS,
} from '#client/lib/power-control-words.ts';
import { formatWindowInZone, formatWindowUtc, zoneLabel } from '#client/lib/time.ts';
import { OUTCOME_KEYS, OUTCOME_WORDS, outcomeTotals, type OutcomeDay } from './outcomes-by-day.ts';
import { seriesInUse, type PowerWindow } from './power-series.ts';

const commandsWord = (count: number) => (count === 1 ? '1 command' : `${count} commands`);

/** The power chart in sentences: per control, how many commands set it and its range, then the windows' span on the site's clock. */
export function powerChartSummary(commands: readonly StatusRecord[], timeZone: string): string {
  const series = seriesInUse(commands);
  if (series.length === 0) return 'No command in view sets a power control value.';
  const sentences = series.map((property) => {
    const values = commands.flatMap((command) => {
      const value = command.powerControl[property];
      return value === undefined ? [] : [value];
    });
    const low = Math.min(...values);
    const high = Math.max(...values);
    const range =
      low === high
        ? `always ${formatPropertyValueInWords(property, low)}`
        : `from ${formatPropertyValueInWords(property, low)} to ${formatPropertyValueInWords(property, high)}`;
    const sides =
      property === 'targetBatteryPowerW'
        ? ' (discharge drawn above the axis, charge below)'
        : property === 'siteImportLimitW'
          ? ' (drawn below the axis)'
          : '';
    return `${POWER_CONTROL_WORDS[property].name} set by ${commandsWord(values.length)}, ${range}${sides}.`;
  });
  const startsMs = commands.map((command) => Date.parse(command.startTime));
  const endsMs = commands.map((command) => Date.parse(command.endTime));
  const span = formatWindowInZone(Math.min(...startsMs), Math.max(...endsMs), timeZone);
  return `${sentences.join(' ')} Windows from ${span.replace(/–| – /, ' to ')} (${zoneLabel(timeZone)}).`;
}

/** One power-chart window in lines for its tooltip: site clock, UTC, each control in words, status. */
export function powerWindowWords(window: PowerWindow, timeZone: string): string[] {
  const { command } = window;
  const status =
    command.status === 'cancelled' && command.cancelReason
      ? `${COMMAND_STATUS_WORDS.cancelled}: ${CANCELLATION_REASON_WORDS[command.cancelReason]}`
      : COMMAND_STATUS_WORDS[command.status];
  return [
    `${formatWindowInZone(command.startTime, command.endTime, timeZone)} (${zoneLabel(timeZone)})`,
    formatWindowUtc(command.startTime, command.endTime),
    ...seriesInUse([command]).map((property) => {
      const value = command.powerControl[property] ?? 0;
      return `${POWER_CONTROL_WORDS[property].name}: ${formatPropertyValueInWords(property, value)}`;
    }),
    status,
  ];
}

const countOf = (day: OutcomeDay) => OUTCOME_KEYS.reduce((sum, key) => sum + day[key], 0);

/** One day of the outcomes chart in lines, for its tooltip: the site-local day, then each count. */
export function outcomeDayWords(day: OutcomeDay, timeZone: string): string[] {
  const counts = OUTCOME_KEYS.filter((key) => day[key] > 0).map(
    (key) => `${OUTCOME_WORDS[key]}: ${day[key]}`,
  );
  return [
    `${day.day} (${zoneLabel(timeZone)}): ${commandsWord(countOf(day))}`,
    ...(counts.length > 0 ? counts : ['No command starts on this day.']),
  ];
}

/** The outcomes chart in words: the total (as the table's), per outcome, and the busiest day. */
export function outcomesChartSummary(days: readonly OutcomeDay[], timeZone: string): string {
  const totals = outcomeTotals(days);
  const total = [...totals.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return 'Outcomes per day: no commands.';
  const parts = [...totals].map(([key, count]) => `${count} ${OUTCOME_WORDS[key].toLowerCase()}`);
  let busiest = days[0];
  let busiestCount = 0;
  for (const day of days) {
    const count = countOf(day);
    if (count > busiestCount) {
      busiest = day;
      busiestCount = count;
    }
  }
  return `Outcomes per day of ${commandsWord(total)}: ${parts.join('; ')}. Busiest day ${busiest?.day ?? ''} (${zoneLabel(timeZone)}) with ${commandsWord(busiestCount)}.`;
}
