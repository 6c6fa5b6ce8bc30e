import type { StatusRecord } from '../../../../domain/command.ts';
import { formatPropertyValue, POWER_CONTROL_WORDS } from '../../../lib/power-control-words.ts';
import { OUTCOME_WORDS, outcomeTotals, type OutcomeDay } from './outcomes-by-day.ts';
import { seriesInUse } from './power-series.ts';

const commandsWord = (count: number) => (count === 1 ? '1 command' : `${count} commands`);

/**
 * What the power chart shows, in sentences for screen readers (and everyone): per control set,
 * how many commands set it and its lowest and highest value with units; battery power says which
 * side is charging and which discharging (spec 2.2).
 */
export function powerChartSummary(commands: readonly StatusRecord[]): string {
  const series = seriesInUse(commands);
  if (series.length === 0) return 'No command in view sets a power control value.';
  return series
    .map((property) => {
      const values = commands.flatMap((command) => {
        const value = command.powerControl[property];
        return value === undefined ? [] : [value];
      });
      const low = Math.min(...values);
      const high = Math.max(...values);
      const range =
        low === high
          ? `always ${formatPropertyValue(property, low)}`
          : `from ${formatPropertyValue(property, low)} to ${formatPropertyValue(property, high)}`;
      const sides =
        property === 'targetBatteryPowerW'
          ? ' (positive discharges, above the axis; negative charges, below)'
          : property === 'siteImportLimitW'
            ? ' (drawn below the axis)'
            : '';
      return `${POWER_CONTROL_WORDS[property].name} set by ${commandsWord(values.length)}, ${range}${sides}.`;
    })
    .join(' ');
}

/**
 * What the outcomes chart shows: the count it covers (the same as the table's), the count per
 * outcome, and the busiest day.
 */
export function outcomesChartSummary(days: readonly OutcomeDay[]): string {
  const totals = outcomeTotals(days);
  const total = [...totals.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return 'Outcomes per day: no commands.';
  const parts = [...totals].map(([key, count]) => `${count} ${OUTCOME_WORDS[key].toLowerCase()}`);
  let busiest = days[0];
  let busiestCount = 0;
  for (const day of days) {
    const count = Object.entries(day).reduce(
      (sum, [key, value]) => (key === 'day' ? sum : sum + Number(value)),
      0,
    );
    if (count > busiestCount) {
      busiest = day;
      busiestCount = count;
    }
  }
  return `Outcomes per day of ${commandsWord(total)}: ${parts.join('; ')}. Busiest day ${busiest?.day ?? ''} with ${commandsWord(busiestCount)}.`;
}
