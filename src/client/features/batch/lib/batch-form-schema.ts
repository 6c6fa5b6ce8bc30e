import { z } from 'zod';
import { DeviceCommandSchema, type DeviceCommand } from '../../../../domain/command.ts';
import {
  POWER_CONTROL_PROPERTIES,
  PowerControlSchema,
  type PowerControl,
  type PowerControlProperty,
} from '../../../../domain/power-control.ts';
import { POWER_CONTROL_WORDS, formatPropertyValue } from '../../../lib/power-control-words.ts';
import { parseDateTimeLocal, toUtcTimestamp } from '../../../lib/time.ts';
import { devicesRefusing, listDeviceIds, type CombinedRange } from './combined-ranges.ts';

interface BatchFormContext {
  combined: Record<PowerControlProperty, CombinedRange>;
  /** IANA zone the window is typed on. */
  timeZone: string;
  /** The current time, read at each validation (injectable for tests). */
  now: () => number;
}

const MINUTE_MS = 60_000;

/** `-5 kW to 5 kW`: a capability range in words. */
export function rangeWords(property: PowerControlProperty, min: number, max: number): string {
  return `${formatPropertyValue(property, min)} to ${formatPropertyValue(property, max)}`;
}

/**
 * The batch command form's schema: the same fields and checks as the device command form (whole
 * numbers, `PowerControlSchema` bounds, at least one control, spec 2.1; a start and end on the
 * chosen clock, start not in the past, end after start), with the capability check done against
 * every selected device: a value outside some devices' ranges names those devices, because the
 * upstream refuses the whole batch for one of them (DESIGN.md 3). The output passes
 * `DeviceCommandSchema`.
 */
export function buildBatchFormSchema({ combined, timeZone, now }: BatchFormContext) {
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

      if (!POWER_CONTROL_PROPERTIES.some((p) => values.powerControl[p]?.trim()))
        issue(
          ['powerControl'],
          'Set at least one power control: a command without one is refused (spec 2.1).',
        );

      const bounds = PowerControlSchema.safeParse(powerControl);
      if (!bounds.success)
        for (const problem of bounds.error.issues)
          if (problem.path.length === 1)
            issue(['powerControl', ...problem.path.map(String)], problem.message);

      for (const property of POWER_CONTROL_PROPERTIES) {
        const value = powerControl[property];
        if (value === undefined) continue;
        const refusing = devicesRefusing(combined[property], value);
        if (refusing.length === 0) continue;
        const { name } = POWER_CONTROL_WORDS[property];
        const common = combined[property].common;
        const fits = common
          ? ` Every selected device that supports it accepts ${rangeWords(property, common.min, common.max)}.`
          : ' The selected devices have no value in common: split the batch.';
        issue(
          ['powerControl', property],
          `${name} ${formatPropertyValue(property, value)} is outside the range of ${refusing.length === 1 ? 'device' : `${refusing.length} devices`}: ${listDeviceIds(refusing)}.${fits}`,
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

/** What the batch form holds: each control as typed, start and end as `datetime-local` values. */
export type BatchFormValues = z.input<ReturnType<typeof buildBatchFormSchema>>;
