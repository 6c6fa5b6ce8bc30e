import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { DeviceCommand } from '../../../../domain/command.ts';
import type { Device, Site } from '../../../../domain/device.ts';
import type { PowerControl } from '../../../../domain/power-control.ts';
import type { WindowMs } from '../../../../domain/time-window.ts';
import { CommandForm } from '../../../commands/components/command-form.tsx';
import { deviceCapabilityCheck } from '../../../commands/lib/capability-checks.ts';
import { utcOffsetLabel } from '../../../lib/time.ts';
import { dragRefusal } from '../lib/drag-refusal.ts';
import type { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import { refusalWords } from '../lib/refusal-words.ts';

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
 * The command form of the timeline, in a modal dialog: the shared command form with the window
 * prefilled on the site's clock and the device's capability ranges, the first supported control
 * focused. Checked before sending with the domain rules: schema (spec 2.1), capabilities (spec
 * 2.2), start not in the past, and no overlap with an active command of the device (spec 3.1
 * rule 2), the command being replaced excepted.
 */
export function CommandFormDialog(props: CommandFormDialogProps) {
  const { device, timeZone, nowMs, overlapIndex, replacingId } = props;
  const dialogRef = useRef<HTMLDialogElement>(null);
  const capabilityCheck = useMemo(
    () => deviceCapabilityCheck(device.capabilities),
    [device.capabilities],
  );
  const windowCheck = useCallback(
    (window: WindowMs) => {
      const refusal = dragRefusal(window, nowMs, overlapIndex, replacingId);
      return refusal ? refusalWords(refusal, timeZone) : null;
    },
    [nowMs, overlapIndex, replacingId, timeZone],
  );
  const [initial] = useState(() => ({
    startMs: props.startMs,
    endMs: props.endMs,
    powerControl: props.powerControl,
  }));

  // A layout effect, so the dialog is open (its fields focusable) before the form's own effect
  // focuses the first control.
  useLayoutEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

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
      <CommandForm
        idPrefix="tl"
        capabilityCheck={capabilityCheck}
        timeZone={timeZone}
        powerControlHelp="Set at least one control. Controls left empty keep the device's current settings."
        initial={initial}
        windowCheck={windowCheck}
        focusFirstControl
        submitLabel={props.submitLabel}
        pendingLabel="Sending…"
        pending={props.busy}
        onSubmit={(command) => props.onSubmit(command)}
        onCancel={props.onDismiss}
        cancelLabel="Close"
      >
        {props.error ? (
          <p role="alert" className="field-error">
            {props.error}
          </p>
        ) : null}
      </CommandForm>
    </dialog>
  );
}
