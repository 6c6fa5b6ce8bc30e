import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import type { DeviceCommand } from '../../../../domain/command.ts';
import type { CapabilityRange, Device } from '../../../../domain/device.ts';
import {
  POWER_CONTROL_PROPERTIES,
  type PowerControlProperty,
} from '../../../../domain/power-control.ts';
import { ErrorAlert } from '../../../components/error-alert.tsx';
import { Field } from '../../../components/field.tsx';
import { POWER_CONTROL_WORDS, formatPropertyValue } from '../../../lib/power-control-words.ts';
import {
  defaultCommandWindow,
  formatInZone,
  formatUtc,
  parseDateTimeLocal,
  toDateTimeLocalValue,
  utcOffsetLabel,
} from '../../../lib/time.ts';
import { useSubmitCommand } from '../api/submit-command.ts';
import { buildCommandFormSchema, type CommandFormValues } from '../lib/command-form-schema.ts';

interface CommandFormProps {
  device: Device;
  /** IANA zone of the device's site; start and end are typed on its clock. */
  timeZone: string;
}

function initialValues(device: Device, timeZone: string, nowMs: number): CommandFormValues {
  const { start, end } = defaultCommandWindow(nowMs);
  const powerControl = Object.fromEntries(
    POWER_CONTROL_PROPERTIES.map((p) => [p, device.capabilities[p] ? '' : undefined]),
  ) as CommandFormValues['powerControl'];
  return {
    powerControl,
    start: toDateTimeLocalValue(start, timeZone),
    end: toDateTimeLocalValue(end, timeZone),
  };
}

/** The UTC equivalent of a typed site time, and a note when the site's clock skips or repeats it. */
function windowHints(value: string, timeZone: string): string[] {
  const resolved = parseDateTimeLocal(value, timeZone);
  if (!resolved) return [];
  const typed = value.slice(11);
  const hints = [formatUtc(resolved.instant)];
  if (resolved.fit === 'skipped')
    hints.push(
      `${typed} does not exist on the site's clock that day (the clocks go forward); it is read as ${formatInZone(resolved.instant, timeZone).slice(11)}.`,
    );
  if (resolved.fit === 'repeated')
    hints.push(
      `${typed} happens twice on the site's clock that day (the clocks go back); the later one is used.`,
    );
  return hints;
}

/** `Range 50% to 100%`, `Range -5 kW to 5 kW (-5000 to 5000 W)`: the range as typed, too. */
function rangeHint(property: PowerControlProperty, range: CapabilityRange): string {
  const words = `Range ${formatPropertyValue(property, range.min)} to ${formatPropertyValue(property, range.max)}`;
  return POWER_CONTROL_WORDS[property].unit === '%'
    ? words
    : `${words} (${range.min} to ${range.max} W)`;
}

const windowSubmitHint: Record<string, string> = {
  window_overlap:
    'Cancel the overlapping command first, or choose a window that does not overlap it (windows may touch).',
  capability_out_of_range: "Keep each value inside the device's capability range.",
};

/**
 * The device command form (issue 2, step 4): the five power controls with units and the sign
 * convention, unsupported ones disabled, each checked against the device's capability range; the
 * effective window on the site's clock with its UTC equivalent. After a submission the window
 * moves on to follow the one just sent, so the next command does not overlap it by default.
 */
export function CommandForm({ device, timeZone }: CommandFormProps) {
  const submit = useSubmitCommand(device.deviceId);
  const schema = useMemo(
    () => buildCommandFormSchema({ capabilities: device.capabilities, timeZone, now: Date.now }),
    [device.capabilities, timeZone],
  );
  const [defaults] = useState(() => initialValues(device, timeZone, Date.now()));
  const [zoneOffset] = useState(() => utcOffsetLabel(Date.now(), timeZone));
  const {
    register,
    handleSubmit,
    control,
    setValue,
    formState: { errors },
  } = useForm<CommandFormValues, unknown, DeviceCommand>({
    resolver: zodResolver(schema),
    defaultValues: defaults,
  });
  const [start, end] = useWatch({ control, name: ['start', 'end'] });

  const onSubmit = handleSubmit((command) =>
    submit.mutate(command, {
      onSuccess: () => {
        const durationMs = Date.parse(command.endTime) - Date.parse(command.startTime);
        const nextEndMs = Date.parse(command.endTime) + durationMs;
        setValue('start', toDateTimeLocalValue(command.endTime, timeZone));
        setValue('end', toDateTimeLocalValue(nextEndMs, timeZone));
      },
    }),
  );

  const formError = errors.powerControl?.message;

  return (
    <form className="command-form stack" onSubmit={onSubmit} noValidate>
      <fieldset aria-describedby="power-control-help">
        <legend>Power control</legend>
        <p id="power-control-help" className="field-hint">
          Set at least one control. Controls left empty keep the device&apos;s current settings.
        </p>
        {formError ? (
          <p role="alert" className="notice notice-error">
            {formError}
          </p>
        ) : null}
        <div className="form-grid">
          {POWER_CONTROL_PROPERTIES.map((property) => {
            const range = device.capabilities[property];
            const hints = [
              property === 'targetBatteryPowerW'
                ? 'Positive discharges the battery, negative charges it.'
                : null,
              range ? rangeHint(property, range) : 'Not supported by this device.',
            ];
            return (
              <Field
                key={property}
                id={`command-${property}`}
                label={POWER_CONTROL_WORDS[property].label}
                hints={hints}
                error={errors.powerControl?.[property]?.message}
              >
                {(controlProps) => (
                  <input
                    {...controlProps}
                    {...register(`powerControl.${property}`, { disabled: !range })}
                    type="number"
                    step={1}
                    min={range?.min}
                    max={range?.max}
                  />
                )}
              </Field>
            );
          })}
        </div>
      </fieldset>
      <fieldset aria-describedby="window-help">
        <legend>Effective window</legend>
        <p id="window-help" className="field-hint">
          Start and end are on the site&apos;s clock, time zone <strong>{timeZone}</strong> (now{' '}
          {zoneOffset}). The command is effective from start up to end.
        </p>
        <div className="form-grid">
          <Field
            id="command-start"
            label="Start"
            hints={windowHints(start, timeZone)}
            error={errors.start?.message}
          >
            {(controlProps) => (
              <input
                {...controlProps}
                {...register('start', { deps: ['end'] })}
                type="datetime-local"
                step={60}
              />
            )}
          </Field>
          <Field
            id="command-end"
            label="End"
            hints={windowHints(end, timeZone)}
            error={errors.end?.message}
          >
            {(controlProps) => (
              <input {...controlProps} {...register('end')} type="datetime-local" step={60} />
            )}
          </Field>
        </div>
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={submit.isPending}>
          {submit.isPending ? 'Submitting…' : 'Submit command'}
        </button>
        <p role="status" className="submit-status">
          {submit.isSuccess ? `Command submitted: ${submit.data.id}` : ''}
        </p>
      </div>
      {submit.isSuccess ? (
        <p className="field-hint">
          The window above now follows on from it, ready for a next command.
        </p>
      ) : null}
      {submit.isError ? (
        <>
          <ErrorAlert error={submit.error} what="The command was not accepted." />
          {windowSubmitHint[submit.error.code] ? (
            <p className="field-hint">{windowSubmitHint[submit.error.code]}</p>
          ) : null}
        </>
      ) : null}
    </form>
  );
}
