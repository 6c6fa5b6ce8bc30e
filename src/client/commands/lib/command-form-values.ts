import {
  parsePowerControlValue,
  POWER_CONTROL_PROPERTIES,
  type PowerControl,
  type PowerControlProperty,
} from '#domain/power-control.ts';
import type { WindowMs } from '#domain/time-window.ts';
import type { CommandFormValues } from './command-form-schema.ts';
import { clockChangeOnDay, formatUtc, parseInstant, toUtcTimestamp } from '../../lib/time.ts';

/** What the command form opens with: a window (epoch ms) and, when changing one, the controls. */
export interface CommandFormInitial {
  startMs: number;
  endMs: number;
  powerControl?: PowerControl | undefined;
}

/** The form's values for {@link CommandFormInitial}: controls as text, window as ISO UTC instants. */
export function toCommandFormValues(initial: CommandFormInitial): CommandFormValues {
  return {
    powerControl: Object.fromEntries(
      POWER_CONTROL_PROPERTIES.map((p) => [p, initial.powerControl?.[p]?.toString() ?? '']),
    ),
    start: toUtcTimestamp(initial.startMs),
    end: toUtcTimestamp(initial.endMs),
  };
}

/** What is typed so far, for checks that run while typing (the batch pre-check). */
export interface CommandDraft {
  properties: PowerControlProperty[];
  /** The window once start and end are times with the end after the start, else `null`. */
  window: WindowMs | null;
  /** The controls typed so far that read as values (W, %); one that does not is left out. */
  powerControl?: Partial<PowerControl> | undefined;
}

export function toCommandDraft(values: CommandFormValues): CommandDraft {
  const properties = POWER_CONTROL_PROPERTIES.filter((p) => values.powerControl[p]?.trim());
  const from = parseInstant(values.start);
  const to = parseInstant(values.end);
  const window =
    from && to && to.getTime() > from.getTime()
      ? { startMs: from.getTime(), endMs: to.getTime() }
      : null;
  const powerControl: Partial<PowerControl> = {};
  for (const property of properties) {
    const parsed = parsePowerControlValue(property, values.powerControl[property] ?? '');
    if ('value' in parsed) powerControl[property] = parsed.value;
  }
  return { properties, window, powerControl };
}

/** The lines under a window field: the UTC equivalent, and on a clock-change day a note on skipped or doubled times. */
export function windowHints(value: string, timeZone: string): string[] {
  const instant = parseInstant(value);
  if (!instant) return [];
  const hints = timeZone === 'UTC' ? [] : [formatUtc(instant)];
  const change = clockChangeOnDay(instant, timeZone);
  if (change)
    hints.push(
      change.forward
        ? `The clocks go forward this day (${change.from} to ${change.to}): the skipped hour's times are read after the jump; the offset in the field is the one in force.`
        : `The clocks go back this day (${change.from} to ${change.to}): an hour happens twice; the offset in the field says which one is meant.`,
    );
  return hints;
}
