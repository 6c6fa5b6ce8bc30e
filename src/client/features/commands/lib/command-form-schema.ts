import { z } from 'zod';
import { DeviceCommandSchema, type DeviceCommand } from '../../../../domain/command.ts';
import { checkCapabilities, type Capabilities } from '../../../../domain/device.ts';
import {
  POWER_CONTROL_PROPERTIES,
  PowerControlSchema,
  type PowerControl,
  type PowerControlProperty,
} from '../../../../domain/power-control.ts';
import { POWER_CONTROL_WORDS } from '../../../lib/power-control-words.ts';
import { parseDateTimeLocal, toUtcTimestamp } from '../../../lib/time.ts';

interface CommandFormContext {
  capabilities: Capabilities;
  /** IANA zone of the site: the wall clock the window is typed on. */
  timeZone: string;
  /** The current time, read at each validation (injectable for tests). */
  now: () => number;
}

const MINUTE_MS = 60_000;

const rangeWords = (property: PowerControlProperty, min: number, max: number) => {
  const { name, unit } = POWER_CONTROL_WORDS[property];
  return unit === '%'
    ? `${name} must be between ${min}% and ${max}% on this device`
    : `${name} must be between ${min} and ${max} W on this device`;
};

/**
 * The command form's schema: parses the typed values into a {@link DeviceCommand} and reports
 * every problem on its field at once: not a whole number, outside the schema bounds
 * (`PowerControlSchema`), outside this device's capability range with the range in the words
 * (spec 2.2, `checkCapabilities`), no control set (spec 2.1; reported on `powerControl`),
 * a start or end that is no time on the site's clock, a start in the past, an end not after the
 * start (spec 2.1). The result passes `DeviceCommandSchema`.
 */
export function buildCommandFormSchema({ capabilities, timeZone, now }: CommandFormContext) {
  const field = z.string().optional();
  return z
    .object({
      powerControl: z.object(
        Object.fromEntries(POWER_CONTROL_PROPERTIES.map((p) => [p, field])) as Record<
          PowerControlProperty,
          typeof field
        >,
      ),
      start: z.string(),
      end: z.string(),
    })
    .transform((values, ctx): DeviceCommand => {
      let issueCount = 0;
      const issue = (path: (string | number)[], message: string) => {
        issueCount += 1;
        ctx.addIssue({ code: 'custom', path, message, input: values });
      };

      const powerControl: PowerControl = {};
      for (const property of POWER_CONTROL_PROPERTIES) {
        const text = values.powerControl[property]?.trim();
        if (!text) continue;
        const value = Number(text);
        const { name, unit } = POWER_CONTROL_WORDS[property];
        if (!Number.isFinite(value)) issue(['powerControl', property], `Enter ${name} in ${unit}`);
        else if (!Number.isInteger(value))
          issue(['powerControl', property], `${name} must be a whole number of ${unit}`);
        else powerControl[property] = value;
      }

      const set = POWER_CONTROL_PROPERTIES.filter((p) => values.powerControl[p]?.trim());
      if (set.length === 0)
        issue(
          ['powerControl'],
          'Set at least one power control: a command without one is refused (spec 2.1).',
        );

      const bounds = PowerControlSchema.safeParse(powerControl);
      if (!bounds.success)
        for (const problem of bounds.error.issues)
          if (problem.path.length === 1)
            issue(['powerControl', ...problem.path.map(String)], problem.message);

      for (const violation of checkCapabilities(powerControl, capabilities)) {
        const { property } = violation;
        if (violation.kind === 'unsupported')
          issue(
            ['powerControl', property],
            `This device does not support ${POWER_CONTROL_WORDS[property].name}`,
          );
        else
          issue(
            ['powerControl', property],
            `${rangeWords(property, violation.range.min, violation.range.max)} (you entered ${violation.value})`,
          );
      }

      const start = parseDateTimeLocal(values.start, timeZone);
      const end = parseDateTimeLocal(values.end, timeZone);
      if (!start) issue(['start'], 'Enter the start date and time');
      if (!end) issue(['end'], 'Enter the end date and time');
      if (start && start.instant.getTime() < Math.floor(now() / MINUTE_MS) * MINUTE_MS)
        issue(['start'], 'Start is in the past: choose a time from now on');
      if (start && end && end.instant.getTime() <= start.instant.getTime())
        issue(['end'], 'End must be after start');
      if (issueCount > 0 || !start || !end) return z.NEVER;

      const command = DeviceCommandSchema.safeParse({
        powerControl,
        startTime: toUtcTimestamp(start.instant),
        endTime: toUtcTimestamp(end.instant),
      });
      if (!command.success) {
        for (const problem of command.error.issues) issue([], problem.message);
        return z.NEVER;
      }
      return command.data;
    });
}

/**
 * What the command form holds: each control as typed (`''` when left empty, `undefined` when the
 * device lacks it and the field is disabled), start and end as `datetime-local` values on the
 * site's clock.
 */
export type CommandFormValues = z.input<ReturnType<typeof buildCommandFormSchema>>;
