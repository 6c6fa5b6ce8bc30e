import {
  POWER_CONTROL_PROPERTIES,
  type PowerControl,
  type PowerControlProperty,
} from '../../../domain/power-control.ts';
import type { WindowMs } from '../../../domain/time-window.ts';
import type { CommandFormValues } from './command-form-schema.ts';
import {
  formatInZone,
  formatUtc,
  parseDateTimeLocal,
  toDateTimeLocalValue,
} from '../../lib/time.ts';

/** What the command form opens with: a window (epoch ms) and, when changing one, the controls. */
export interface CommandFormInitial {
  startMs: number;
  endMs: number;
  powerControl?: PowerControl | undefined;
}

/** The form's values for {@link CommandFormInitial}: the window on `timeZone`'s wall clock. */
export function toCommandFormValues(
  initial: CommandFormInitial,
  timeZone: string,
): CommandFormValues {
  return {
    powerControl: Object.fromEntries(
      POWER_CONTROL_PROPERTIES.map((p) => [p, initial.powerControl?.[p]?.toString() ?? '']),
    ),
    start: toDateTimeLocalValue(initial.startMs, timeZone),
    end: toDateTimeLocalValue(initial.endMs, timeZone),
  };
}

/** What is typed so far, for checks that run while typing (the batch pre-check). */
export interface CommandDraft {
  /** The controls with something typed in. */
  properties: PowerControlProperty[];
  /** The window once start and end are times with the end after the start, else `null`. */
  window: WindowMs | null;
}

/** The draft of the form's current values, the window read on `timeZone`'s clock. */
export function toCommandDraft(values: CommandFormValues, timeZone: string): CommandDraft {
  const properties = POWER_CONTROL_PROPERTIES.filter((p) => values.powerControl[p]?.trim());
  const from = parseDateTimeLocal(values.start, timeZone);
  const to = parseDateTimeLocal(values.end, timeZone);
  const window =
    from && to && to.instant.getTime() > from.instant.getTime()
      ? { startMs: from.instant.getTime(), endMs: to.instant.getTime() }
      : null;
  return { properties, window };
}

/**
 * The lines under a window field: the UTC equivalent of the typed time, and a note when the clock
 * skips it (read as the instant after the gap) or repeats it (the later one is used), as
 * `parseDateTimeLocal` resolves it. Empty when the value is no time.
 */
export function windowHints(value: string, timeZone: string): string[] {
  const resolved = parseDateTimeLocal(value, timeZone);
  if (!resolved) return [];
  const typed = value.slice(11);
  const hints = [formatUtc(resolved.instant)];
  if (resolved.fit === 'skipped')
    hints.push(
      `${typed} does not exist on this clock that day (the clocks go forward); it is read as ${formatInZone(resolved.instant, timeZone).slice(11)}.`,
    );
  if (resolved.fit === 'repeated')
    hints.push(
      `${typed} happens twice on this clock that day (the clocks go back); the later one is used.`,
    );
  return hints;
}
