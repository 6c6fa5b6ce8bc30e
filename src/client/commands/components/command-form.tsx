import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import type { DeviceCommand } from '#domain/command.ts';
import { POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import type { WindowMs } from '#domain/time-window.ts';
import type { CapabilityCheck } from '../lib/capability-checks.ts';
import { buildCommandFormSchema, type CommandFormValues } from '../lib/command-form-schema.ts';
import {
  toCommandDraft,
  toCommandFormValues,
  windowHints,
  type CommandDraft,
  type CommandFormInitial,
} from '../lib/command-form-values.ts';
import { POWER_CONTROL_WORDS } from '../../lib/power-control-words.ts';
import { isFixedOffset, toUtcTimestamp, utcOffsetLabel, zoneLabel } from '../../lib/time.ts';
import { DateTimeField } from '../../components/date-time-field.tsx';
import { Field } from '../../components/field.tsx';
import './command-form.css';

export interface CommandFormHandle {
  setWindow: (startMs: number, endMs: number) => void;
}

export interface CommandFormProps {
  idPrefix: string;
  label?: string | undefined;
  /** One device's capabilities or a batch's combined ones: hints, input spans and refusals. */
  capabilityCheck: CapabilityCheck;
  timeZone: string;
  /** More words on the clock, after the zone (e.g. why a batch is typed in UTC). */
  zoneNote?: ReactNode;
  /** The help under "Power control" (who gets the command, what empty controls mean). */
  powerControlHelp: string;
  initial: CommandFormInitial;
  /** See `buildCommandFormSchema`: a further refusal of an otherwise valid window. */
  windowCheck?: ((window: WindowMs) => string | null) | undefined;
  /** Focus the first enabled control on opening (the timeline's dialog, prefilled window). */
  focusFirstControl?: boolean;
  /** Rendered above the buttons with what is typed so far (the batch pre-check). */
  beforeSubmit?: (draft: CommandDraft) => ReactNode;
  submitLabel: string;
  pendingLabel?: string;
  pending: boolean;
  canSubmit?: boolean;
  onSubmit: (command: DeviceCommand, form: CommandFormHandle) => void;
  /** On an attempt or a changed value: the last outcome no longer belongs on screen (`mutation.reset()`). */
  onNewInput?: (() => void) | undefined;
  onCancel?: (() => void) | undefined;
  cancelLabel?: string;
  /** Rendered beside the buttons, e.g. a `role="status"` line on the last submission. */
  status?: ReactNode;
  children?: ReactNode;
}

/**
 * The command form for one device, a batch and the timeline alike: the power controls with
 * capability hints, and the window on the site's clock with UTC and clock-change notes. Every
 * problem shows on its field ({@link buildCommandFormSchema}). The window is held as instants, so
 * a change of zone shows the same instants on the new clock.
 */
export function CommandForm(props: CommandFormProps) {
  const { idPrefix, capabilityCheck, timeZone, windowCheck, pending, onSubmit } = props;
  const schema = useMemo(
    () => buildCommandFormSchema({ capabilityCheck, now: Date.now, windowCheck }),
    [capabilityCheck, windowCheck],
  );
  const [openedAtMs] = useState(() => Date.now());
  const [defaults] = useState(() => toCommandFormValues(props.initial));
  const {
    register,
    handleSubmit,
    control,
    setValue,
    setFocus,
    formState: { errors },
  } = useForm<CommandFormValues, unknown, DeviceCommand>({
    resolver: zodResolver(schema),
    defaultValues: defaults,
  });

  const [firstControl] = useState(() =>
    POWER_CONTROL_PROPERTIES.find((p) => capabilityCheck.inputRange(p)),
  );
  const focusFirstControl = props.focusFirstControl ?? false;
  useEffect(() => {
    if (focusFirstControl && firstControl) setFocus(`powerControl.${firstControl}`);
  }, [focusFirstControl, firstControl, setFocus]);

  const [powerControl, start, end] = useWatch({ control, name: ['powerControl', 'start', 'end'] });
  const handle: CommandFormHandle = {
    setWindow: (startMs, endMs) => {
      setValue('start', toUtcTimestamp(startMs));
      setValue('end', toUtcTimestamp(endMs));
    },
  };
  const formError = errors.powerControl?.message;
  const powerControlFieldset = useRef<HTMLFieldSetElement>(null);

  return (
    <form
      className="command-form stack"
      onChange={() => props.onNewInput?.()}
      onSubmit={(event) => {
        props.onNewInput?.();
        void handleSubmit(
          (command) => onSubmit(command, handle),
          (invalid) => {
            // "No control set" has no field to focus, and the alert could sit out of view in a scrolling
            // dialog: focus the first control and bring the fieldset into view.
            const fieldErrors = Object.keys(invalid).filter((name) => name !== 'powerControl');
            const controlErrors = Object.keys(invalid.powerControl ?? {}).filter((name) =>
              (POWER_CONTROL_PROPERTIES as readonly string[]).includes(name),
            );
            if (fieldErrors.length > 0 || controlErrors.length > 0 || !firstControl) return;
            setFocus(`powerControl.${firstControl}`);
            powerControlFieldset.current?.scrollIntoView({ block: 'start' });
          },
        )(event);
      }}
      noValidate
      aria-label={props.label}
    >
      <fieldset ref={powerControlFieldset} aria-describedby={`${idPrefix}-power-control-help`}>
        <legend>Power control</legend>
        <p id={`${idPrefix}-power-control-help`} className="field-hint">
          {props.powerControlHelp}
        </p>
        {formError ? (
          <p role="alert" className="notice notice-error">
            {formError}
          </p>
        ) : null}
        <div className="form-grid">
          {POWER_CONTROL_PROPERTIES.map((property) => {
            const range = capabilityCheck.inputRange(property);
            return (
              <Field
                key={property}
                id={`${idPrefix}-${property}`}
                label={POWER_CONTROL_WORDS[property].label}
                hints={[
                  property === 'targetBatteryPowerW'
                    ? 'Positive discharges the battery, negative charges it.'
                    : null,
                  capabilityCheck.hint(property),
                ]}
                error={errors.powerControl?.[property]?.message}
              >
                {(controlProps) => (
                  // Text, not a number input: that drops what it cannot read ("5 kW" became 5), the schema reads kW.
                  <input
                    {...controlProps}
                    {...register(`powerControl.${property}`, { disabled: !range })}
                    type="text"
                    autoComplete="off"
                    spellCheck={false}
                  />
                )}
              </Field>
            );
          })}
        </div>
      </fieldset>
      <fieldset aria-describedby={`${idPrefix}-window-help`}>
        <legend>Effective window</legend>
        <p id={`${idPrefix}-window-help`} className="field-hint">
          Start and end are on the clock of time zone <strong>{zoneLabel(timeZone)}</strong>{' '}
          {isFixedOffset(timeZone)
            ? '(a fixed offset, with no daylight saving time)'
            : `(now ${utcOffsetLabel(openedAtMs, timeZone)})`}
          . The command is effective from start up to end.
          {props.zoneNote ? <> {props.zoneNote}</> : null}
        </p>
        <div className="form-grid window-grid">
          {(['start', 'end'] as const).map((name) => (
            <Field
              key={name}
              id={`${idPrefix}-${name}`}
              label={name === 'start' ? 'Start' : 'End'}
              hints={windowHints(name === 'start' ? start : end, timeZone)}
              error={errors[name]?.message}
              labelledById
            >
              {(controlProps, { labelId }) => (
                <Controller
                  name={name}
                  control={control}
                  // A new start can make the end valid again (or not): check both.
                  rules={name === 'start' ? { deps: ['end'] } : {}}
                  render={({ field }) => (
                    <DateTimeField
                      {...controlProps}
                      aria-labelledby={labelId}
                      timeZone={timeZone}
                      value={field.value}
                      onChange={(value) => {
                        field.onChange(value);
                        props.onNewInput?.();
                      }}
                      onBlur={field.onBlur}
                      ref={field.ref}
                    />
                  )}
                />
              )}
            </Field>
          ))}
        </div>
      </fieldset>
      {props.beforeSubmit?.(toCommandDraft({ powerControl, start, end }))}
      <div className="actions">
        {props.onCancel ? (
          <button type="button" onClick={props.onCancel}>
            {props.cancelLabel ?? 'Cancel'}
          </button>
        ) : null}
        <button type="submit" className="primary" disabled={props.canSubmit === false || pending}>
          {pending ? (props.pendingLabel ?? 'Submitting…') : props.submitLabel}
        </button>
        {props.status}
      </div>
      {props.children}
    </form>
  );
}
