import { useEffect, useRef, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { DeviceCommandSchema, type DeviceCommand } from '../../../../domain/command.ts';
import {
  checkCapabilities,
  describeViolation,
  type Device,
  type Site,
} from '../../../../domain/device.ts';
import {
  POWER_CONTROL_PROPERTIES,
  type PowerControl,
  type PowerControlProperty,
} from '../../../../domain/power-control.ts';
import { Field } from '../../../components/field.tsx';
import { POWER_CONTROL_WORDS } from '../../../lib/power-control-words.ts';
import {
  formatWindowUtc,
  parseDateTimeLocal,
  toDateTimeLocalValue,
  utcOffsetLabel,
} from '../../../lib/time.ts';
import { dragRefusal } from '../lib/drag-refusal.ts';
import type { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import { refusalWords } from './timeline-view.tsx';

type FormValues = Record<PowerControlProperty, string> & { start: string; end: string };

export interface CommandFormDialogProps {
  title: string;
  site: Site;
  device: Device;
  timeZone: string;
  startMs: number;
  endMs: number;
  powerControl?: PowerControl;
  nowMs: number;
  overlapIndex: DeviceOverlapIndex | undefined;
  /** A command being replaced: its own window does not count as a conflict. */
  replacingId?: string;
  submitLabel: string;
  busy: boolean;
  error: string | undefined;
  onSubmit: (command: DeviceCommand) => void;
  onDismiss: () => void;
}

/**
 * The command form of the timeline, in a modal dialog: the window prefilled on the site's clock
 * (with its UTC equivalent), one field per power control with the device's capability range as
 * hint. Checked before sending with the domain rules: schema (spec 2.1), capabilities (spec 2.2),
 * start not in the past and no overlap with an active command (spec 3.1 rule 2).
 */
export function CommandFormDialog(props: CommandFormDialogProps) {
  const { device, timeZone } = props;
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [formError, setFormError] = useState<string>();
  const { register, handleSubmit, control, formState, setFocus } = useForm<FormValues>({
    defaultValues: {
      ...Object.fromEntries(
        POWER_CONTROL_PROPERTIES.map((p) => [p, props.powerControl?.[p]?.toString() ?? '']),
      ),
      start: toDateTimeLocalValue(props.startMs, timeZone),
      end: toDateTimeLocalValue(props.endMs, timeZone),
    } as FormValues,
  });

  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
    // The window comes prefilled from the drag or the focused time: start at the values.
    const firstSupported = POWER_CONTROL_PROPERTIES.find((p) => device.capabilities[p]);
    if (firstSupported) setFocus(firstSupported);
    return () => dialog?.close();
  }, [device, setFocus]);

  const start = parseDateTimeLocal(useWatch({ control, name: 'start' }), timeZone);
  const end = parseDateTimeLocal(useWatch({ control, name: 'end' }), timeZone);

  const onValid = (values: FormValues) => {
    setFormError(undefined);
    if (!start || !end) return setFormError('Enter a start and an end.');
    const powerControl: Record<string, number> = {};
    for (const property of POWER_CONTROL_PROPERTIES) {
      const text = values[property].trim();
      if (text !== '') powerControl[property] = Number(text);
    }
    const parsed = DeviceCommandSchema.safeParse({
      powerControl,
      startTime: start.instant.toISOString(),
      endTime: end.instant.toISOString(),
    });
    if (!parsed.success)
      return setFormError(parsed.error.issues.map((issue) => issue.message).join('; '));
    const violations = checkCapabilities(parsed.data.powerControl, device.capabilities);
    if (violations.length > 0) return setFormError(violations.map(describeViolation).join('; '));
    const refusal = dragRefusal(
      { startMs: start.instant.getTime(), endMs: end.instant.getTime() },
      props.nowMs,
      props.overlapIndex,
      props.replacingId,
    );
    if (refusal) return setFormError(refusalWords(refusal, timeZone));
    props.onSubmit(parsed.data);
  };

  const shownError = formError ?? props.error;
  return (
    <dialog
      ref={dialogRef}
      className="confirm-dialog command-form-dialog"
      aria-labelledby="command-form-title"
      onCancel={(event) => {
        event.preventDefault();
        props.onDismiss();
      }}
    >
      <h2 id="command-form-title">{props.title}</h2>
      <p>
        {device.name} ({device.deviceId}) at {props.site.name}; times on the site clock, {timeZone}{' '}
        ({utcOffsetLabel(props.startMs, timeZone)}).
      </p>
      <form noValidate onSubmit={(event) => void handleSubmit(onValid)(event)}>
        <Field
          id="tl-start"
          label="Start"
          hints={[
            start ? formatWindowUtc(start.instant, end?.instant ?? start.instant) : undefined,
          ]}
        >
          {(fieldProps) => <input type="datetime-local" {...fieldProps} {...register('start')} />}
        </Field>
        <Field id="tl-end" label="End">
          {(fieldProps) => <input type="datetime-local" {...fieldProps} {...register('end')} />}
        </Field>
        {POWER_CONTROL_PROPERTIES.map((property) => {
          const range = device.capabilities[property];
          return (
            <Field
              key={property}
              id={`tl-${property}`}
              label={POWER_CONTROL_WORDS[property].label}
              hints={[
                range
                  ? `Device range ${range.min} to ${range.max}`
                  : 'Not supported by this device',
              ]}
            >
              {(fieldProps) => (
                <input
                  type="number"
                  inputMode="numeric"
                  disabled={!range}
                  min={range?.min}
                  max={range?.max}
                  {...fieldProps}
                  {...register(property)}
                />
              )}
            </Field>
          );
        })}
        {shownError ? (
          <p role="alert" className="field-error">
            {shownError}
          </p>
        ) : null}
        <div className="actions">
          <button type="button" onClick={props.onDismiss}>
            Close
          </button>
          <button type="submit" disabled={props.busy || formState.isSubmitting}>
            {props.busy ? 'Sending…' : props.submitLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
