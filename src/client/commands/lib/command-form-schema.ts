import { z } from 'zod';
import { DeviceCommandSchema, type DeviceCommand } from '#domain/command.ts';
import {
  parsePowerControlValue,
  POWER_CONTROL_PROPERTIES,
  PowerControlSchema,
  type PowerControl,
  type PowerControlProperty,
} from '#domain/power-control.ts';
import type { WindowMs } from '#domain/time-window.ts';
import type { CapabilityCheck } from './capability-checks.ts';
import { parseInstant, toUtcTimestamp } from '../../lib/time.ts';

export interface CommandFormContext {
  capabilityCheck: CapabilityCheck;
  /** The current time in epoch ms, read at each validation (injectable for tests). */
  now: () => number;
  /** A further check of an otherwise valid window (e.g. timeline overlap): the refusal's words, on the start, or `null`. */
  windowCheck?: ((window: WindowMs) => string | null) | undefined;
}

const MINUTE_MS = 60_000;

/**
 * The command form's schema for one device and a batch alike: every problem on its field at once
 * (unreadable value, capability refusal, schema bounds, no control, missing, past or reversed
 * window, then `windowCheck`; docs/upstream.md, Commands). Its output passes `DeviceCommandSchema`.
 */
export function buildCommandFormSchema({ capabilityCheck, now, windowCheck }: CommandFormContext) {
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
        const read = parsePowerControlValue(property, text);
        if ('value' in read) powerControl[property] = read.value;
        else issue(['powerControl', property], read.problem);
      }

      if (!POWER_CONTROL_PROPERTIES.some((p) => values.powerControl[p]?.trim()))
        issue(
          ['powerControl'],
          'Set at least one power control: a command without one is refused.',
        );

      // The capability refusal first: it names the device's own, narrower range.
      const refusals = capabilityCheck.refusals(powerControl);
      for (const refusal of refusals) issue(['powerControl', refusal.property], refusal.message);
      const refused = new Set(refusals.map((refusal) => refusal.property));
      const bounds = PowerControlSchema.safeParse(powerControl);
      if (!bounds.success)
        for (const problem of bounds.error.issues) {
          const property = problem.path[0];
          if (problem.path.length === 1 && !refused.has(property as PowerControlProperty))
            issue(['powerControl', String(property)], problem.message);
        }

      const start = parseInstant(values.start);
      const end = parseInstant(values.end);
      let windowValid = Boolean(start && end);
      if (!start) issue(['start'], 'Enter the start date and time');
      if (!end) issue(['end'], 'Enter the end date and time');
      if (start && start.getTime() < Math.floor(now() / MINUTE_MS) * MINUTE_MS) {
        windowValid = false;
        issue(['start'], 'Start is in the past: choose a time from now on');
      }
      if (start && end && end.getTime() <= start.getTime()) {
        windowValid = false;
        issue(['end'], 'End must be after start');
      }
      if (windowValid && start && end && windowCheck) {
        const refusal = windowCheck({ startMs: start.getTime(), endMs: end.getTime() });
        if (refusal) issue(['start'], refusal);
      }
      if (issueCount > 0 || !start || !end) return z.NEVER;

      const command = DeviceCommandSchema.safeParse({
        powerControl,
        startTime: toUtcTimestamp(start),
        endTime: toUtcTimestamp(end),
      });
      if (!command.success) {
        for (const problem of command.error.issues) issue([], problem.message);
        return z.NEVER;
      }
      return command.data;
    });
}

/** What the form holds: each control as typed (`''` if empty), start and end as ISO UTC (`''` while incomplete). */
export type CommandFormValues = z.input<ReturnType<typeof buildCommandFormSchema>>;
