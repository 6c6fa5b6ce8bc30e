import { tz } from '@date-fns/tz';
import { addDays, format, startOfDay } from 'date-fns';
import {
  CANCELLATION_REASONS,
  type CancellationReason,
  type StatusRecord,
} from '#domain/command.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '#domain/words.ts';

/** Outcomes of the per-day chart: live states, completed, cancelled by reason (`cancelled:unknown` without one). */
export const OUTCOME_KEYS = [
  'received',
  'executing',
  'completed',
  ...CANCELLATION_REASONS.map((reason) => `cancelled:${reason}` as const),
  'cancelled:unknown',
] as const;
export type OutcomeKey = (typeof OUTCOME_KEYS)[number];

export const OUTCOME_WORDS: Record<OutcomeKey, string> = {
  received: COMMAND_STATUS_WORDS.received,
  executing: COMMAND_STATUS_WORDS.executing,
  completed: COMMAND_STATUS_WORDS.completed,
  ...(Object.fromEntries(
    CANCELLATION_REASONS.map((reason) => [
      `cancelled:${reason}`,
      `Cancelled: ${CANCELLATION_REASON_WORDS[reason]}`,
    ]),
  ) as Record<`cancelled:${CancellationReason}`, string>),
  'cancelled:unknown': 'Cancelled, reason not given',
};

export function outcomeOf(command: StatusRecord): OutcomeKey {
  if (command.status !== 'cancelled') return command.status;
  return command.cancelReason ? `cancelled:${command.cancelReason}` : 'cancelled:unknown';
}

/** One bar: a site-local day (`yyyy-MM-dd`), its site-clock midnight (epoch ms), its count per outcome. */
export type OutcomeDay = { day: string; startMs: number } & Record<OutcomeKey, number>;

const emptyDay = (day: string, startMs: number): OutcomeDay =>
  ({ day, startMs, ...Object.fromEntries(OUTCOME_KEYS.map((key) => [key, 0])) }) as OutcomeDay;

/**
 * Commands per site-calendar day of their start, one bar for every day of `[startMs, endMs)`; each
 * command counts once (one that started before the range on its first day), so bars add up to the table.
 */
export function outcomesByDay(
  commands: readonly StatusRecord[],
  startMs: number,
  endMs: number,
  timeZone: string,
): OutcomeDay[] {
  const inZone = tz(timeZone);
  const dayOf = (ms: number) => format(ms, 'yyyy-MM-dd', { in: inZone });
  const days = new Map<string, OutcomeDay>();
  for (
    let day = startOfDay(startMs, { in: inZone });
    day.getTime() < endMs;
    day = addDays(day, 1, { in: inZone })
  )
    days.set(dayOf(day.getTime()), emptyDay(dayOf(day.getTime()), day.getTime()));
  const firstDay = dayOf(startMs);
  for (const command of commands) {
    const startedMs = Date.parse(command.startTime);
    const key = startedMs < startMs ? firstDay : dayOf(startedMs);
    const bucket = days.get(key) ?? emptyDay(key, startOfDay(startedMs, { in: inZone }).getTime());
    bucket[outcomeOf(command)] += 1;
    days.set(key, bucket);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

/** Totals per outcome over all days; keys with zero are left out. */
export function outcomeTotals(days: readonly OutcomeDay[]): Map<OutcomeKey, number> {
  const totals = new Map<OutcomeKey, number>();
  for (const day of days)
    for (const key of OUTCOME_KEYS)
      if (day[key]) totals.set(key, (totals.get(key) ?? 0) + day[key]);
  return totals;
}
