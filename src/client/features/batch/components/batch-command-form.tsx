import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import type { DeviceCommand } from '../../../../domain/command.ts';
import {
  POWER_CONTROL_PROPERTIES,
  type PowerControlProperty,
} from '../../../../domain/power-control.ts';
import { Field } from '../../../components/field.tsx';
import { POWER_CONTROL_WORDS } from '../../../lib/power-control-words.ts';
import {
  defaultCommandWindow,
  formatInZone,
  formatUtc,
  parseDateTimeLocal,
  toDateTimeLocalValue,
  utcOffsetLabel,
} from '../../../lib/time.ts';
import {
  buildBatchFormSchema,
  rangeWords,
  type BatchFormValues,
} from '../lib/batch-form-schema.ts';
import { listDeviceIds, type CombinedRange } from '../lib/combined-ranges.ts';
import type { PrecheckDraft } from '../lib/precheck.ts';

interface BatchCommandFormProps {
  combined: Record<PowerControlProperty, CombinedRange>;
  timeZone: string;
  /** Why the window is on this clock, shown under the zone (e.g. sites in several zones). */
  zoneNote?: string | undefined;
  /** Rendered above the submit button with what is typed so far (the pre-check). */
  beforeSubmit: (draft: PrecheckDraft) => ReactNode;
  submitLabel: string;
  /** False while the selection cannot be submitted (0 or more than 50 devices). */
  canSubmit: boolean;
  pending: boolean;
  onSubmit: (command: DeviceCommand) => void;
}

function windowHints(value: string, timeZone: string): string[] {
  const resolved = parseDateTimeLocal(value, timeZone);
  if (!resolved) return [];
  const hints = [formatUtc(resolved.instant)];
  if (resolved.fit === 'skipped')
    hints.push(
      `${value.slice(11)} does not exist on this clock that day (the clocks go forward); it is read as ${formatInZone(resolved.instant, timeZone).slice(11)}.`,
    );
  if (resolved.fit === 'repeated')
    hints.push(
      `${value.slice(11)} happens twice on this clock that day (the clocks go back); the later one is used.`,
    );
  return hints;
}

function rangeHint(combined: CombinedRange): string {
  const { property, common, envelope, supporting, lacking } = combined;
  if (!envelope) return 'Not supported by any selected device.';
  const parts = [
    common
      ? `Fits every device that supports it: ${rangeWords(property, common.min, common.max)}`
      : `No value fits every device (ranges span ${rangeWords(property, envelope.min, envelope.max)})`,
  ];
  if (common && (common.min !== envelope.min || common.max !== envelope.max))
    parts.push(`some devices accept ${rangeWords(property, envelope.min, envelope.max)}`);
  if (lacking.length > 0)
    parts.push(
      `not supported by ${lacking.length} of ${supporting.length + lacking.length} (${listDeviceIds(lacking, 3)})`,
    );
  return `${parts.join('; ')}.`;
}

/** The draft the pre-check reads: controls typed, and the window once it is a valid one. */
function toDraft(
  values: BatchFormValues['powerControl'],
  start: string,
  end: string,
  timeZone: string,
): PrecheckDraft {
  const properties = POWER_CONTROL_PROPERTIES.filter((p) => values[p]?.trim());
  const from = parseDateTimeLocal(start, timeZone);
  const to = parseDateTimeLocal(end, timeZone);
  const window =
    from && to && to.instant.getTime() > from.instant.getTime()
      ? { startMs: from.instant.getTime(), endMs: to.instant.getTime() }
      : null;
  return { properties, window };
}

/**
 * The command form for a batch: the device command form's fields, units and checks, with each
 * control's capability range combined over the selected devices (issue 6). A value outside some
 * devices' ranges names them; a control no selected device supports is disabled.
 */
export function BatchCommandForm({
  combined,
  timeZone,
  zoneNote,
  beforeSubmit,
  submitLabel,
  canSubmit,
  pending,
  onSubmit,
}: BatchCommandFormProps) {
  const schema = useMemo(
    () => buildBatchFormSchema({ combined, timeZone, now: Date.now }),
    [combined, timeZone],
  );
  const [openedAtMs] = useState(() => Date.now());
  const [defaults] = useState((): BatchFormValues => {
    const { start, end } = defaultCommandWindow(openedAtMs);
    return {
      powerControl: Object.fromEntries(POWER_CONTROL_PROPERTIES.map((p) => [p, ''])),
      start: toDateTimeLocalValue(start, timeZone),
      end: toDateTimeLocalValue(end, timeZone),
    };
  });
  const {
    register,
    handleSubmit,
    control,
    getValues,
    setValue,
    formState: { errors },
  } = useForm<BatchFormValues, unknown, DeviceCommand>({
    resolver: zodResolver(schema),
    defaultValues: defaults,
  });
  // The clock follows the selection (device-directory `batchTimeZone`); the typed window keeps
  // its instants when the clock changes, instead of being read as another time on the new clock.
  const zoneOfValues = useRef(timeZone);
  useEffect(() => {
    const previous = zoneOfValues.current;
    if (previous === timeZone) return;
    zoneOfValues.current = timeZone;
    for (const name of ['start', 'end'] as const) {
      const resolved = parseDateTimeLocal(getValues(name), previous);
      if (resolved) setValue(name, toDateTimeLocalValue(resolved.instant, timeZone));
    }
  }, [timeZone, getValues, setValue]);
  const [powerControl, start, end] = useWatch({ control, name: ['powerControl', 'start', 'end'] });
  const draft = toDraft(powerControl, start, end, timeZone);
  const formError = errors.powerControl?.message;

  return (
    <form
      className="command-form stack"
      onSubmit={(event) => void handleSubmit(onSubmit)(event)}
      noValidate
      aria-label="Batch command"
    >
      <fieldset aria-describedby="batch-power-control-help">
        <legend>Power control</legend>
        <p id="batch-power-control-help" className="field-hint">
          The same command goes to every selected device. Set at least one control; controls left
          empty keep each device&apos;s current settings.
        </p>
        {formError ? (
          <p role="alert" className="notice notice-error">
            {formError}
          </p>
        ) : null}
        <div className="form-grid">
          {POWER_CONTROL_PROPERTIES.map((property) => {
            const range = combined[property];
            return (
              <Field
                key={property}
                id={`batch-${property}`}
                label={POWER_CONTROL_WORDS[property].label}
                hints={[
                  property === 'targetBatteryPowerW'
                    ? 'Positive discharges the battery, negative charges it.'
                    : null,
                  rangeHint(range),
                ]}
                error={errors.powerControl?.[property]?.message}
              >
                {(controlProps) => (
                  <input
                    {...controlProps}
                    {...register(`powerControl.${property}`, { disabled: !range.envelope })}
                    type="number"
                    step={1}
                  />
                )}
              </Field>
            );
          })}
        </div>
      </fieldset>
      <fieldset aria-describedby="batch-window-help">
        <legend>Effective window</legend>
        <p id="batch-window-help" className="field-hint">
          Start and end are on the clock of time zone <strong>{timeZone}</strong> (now{' '}
          {utcOffsetLabel(openedAtMs, timeZone)}). {zoneNote}
        </p>
        <div className="form-grid">
          <Field
            id="batch-start"
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
            id="batch-end"
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
      {beforeSubmit(draft)}
      <div className="actions">
        <button type="submit" className="primary" disabled={!canSubmit || pending}>
          {pending ? 'Submitting…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
