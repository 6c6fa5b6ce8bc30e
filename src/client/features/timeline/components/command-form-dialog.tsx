import { useCallback, useMemo, useState, type ReactNode } from 'react';
import type { DeviceCommand } from '#domain/command.ts';
import type { Device, Site } from '#domain/device.ts';
import type { PowerControl } from '#domain/power-control.ts';
import type { WindowMs } from '#domain/time-window.ts';
import { CommandForm } from '#client/commands/components/command-form.tsx';
import { Dialog } from '#client/components/dialog.tsx';
import { deviceCapabilityCheck } from '#client/commands/lib/capability-checks.ts';
import { utcOffsetLabel } from '#client/lib/time.ts';
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
  /** Where a sent submission stands while its outcome is open (an outage): shown above `error`. */
  status?: ReactNode;
  error: string | undefined;
  onSubmit: (command: DeviceCommand) => void;
  onDismiss: () => void;
}

/**
 * The shared command form in a modal {@link Dialog}, window prefilled on the site's clock,
 * checked before sending with the domain rules (docs/upstream.md, Commands and Lifecycle).
 */
export function CommandFormDialog(props: CommandFormDialogProps) {
  const { device, timeZone, nowMs, overlapIndex, replacingId } = props;
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

  return (
    <Dialog title={props.title} size="large" onClose={props.onDismiss}>
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
        {props.status}
        {props.error ? (
          <p role="alert" className="field-error">
            {props.error}
          </p>
        ) : null}
      </CommandForm>
    </Dialog>
  );
}
