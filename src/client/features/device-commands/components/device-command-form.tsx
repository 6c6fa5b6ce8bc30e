import { useQuery } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import { isActiveStatus } from '#domain/command.ts';
import { isQueuedAnswer } from '#domain/queued-change.ts';
import type { Device } from '#domain/device.ts';
import { submittedUndo } from '#client/commands/lib/undo.ts';
import { commandStatusQueryOptions } from '#client/commands/api/get-command-status.ts';
import { useSubmitCommand } from '#client/commands/api/submit-command.ts';
import { useUndo } from '#client/commands/api/undo-change.ts';
import { CommandForm } from '#client/commands/components/command-form.tsx';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { deviceCapabilityCheck } from '#client/commands/lib/capability-checks.ts';
import { OutcomeCheckingStatus } from '#client/commands/components/outcome-checking-status.tsx';
import { QueuedChangeLine } from '#client/commands/components/queued-change-line.tsx';
import { overlapConflict } from '#client/lib/problem-words.ts';
import { defaultCommandWindow } from '#client/lib/time.ts';
import { COMMAND_STATUS_WORDS } from '#domain/words.ts';

interface DeviceCommandFormProps {
  device: Device;
  timeZone: string;
}

const windowSubmitHint: Record<string, string> = {
  window_overlap:
    'Cancel the overlapping command first, or choose a window that does not overlap it (windows may touch).',
  capability_out_of_range: "Keep each value inside the device's capability range.",
};

/** The device command form on the site's clock; after a submission the window moves on, so the next does not overlap it. */
export function DeviceCommandForm({ device, timeZone }: DeviceCommandFormProps) {
  const submit = useSubmitCommand();
  const { offerUndo } = useUndo();
  const statusRef = useRef<HTMLParagraphElement>(null);
  // An overlap refusal is stale once the command in the way is no longer active: not shown as if it held.
  const conflictId = submit.isError
    ? overlapConflict(submit.error)?.conflictingCommandId
    : undefined;
  const conflict = useQuery({
    ...commandStatusQueryOptions(device.deviceId, conflictId ?? ''),
    enabled: conflictId !== undefined,
  });
  const conflictGone =
    conflictId !== undefined &&
    conflict.data !== undefined &&
    !isActiveStatus(conflict.data.status);
  const capabilityCheck = useMemo(
    () => deviceCapabilityCheck(device.capabilities),
    [device.capabilities],
  );
  const [initial] = useState(() => {
    const { start, end } = defaultCommandWindow(Date.now());
    return { startMs: start.getTime(), endMs: end.getTime() };
  });

  return (
    <CommandForm
      idPrefix="command"
      capabilityCheck={capabilityCheck}
      timeZone={timeZone}
      zoneNote="It is the site's clock."
      powerControlHelp="Set at least one control. Controls left empty keep the device's current settings."
      initial={initial}
      submitLabel="Submit command"
      pending={submit.isPending}
      onNewInput={() => {
        if (!submit.isPending) submit.reset();
      }}
      onSubmit={(command, form) =>
        submit.mutate(
          { deviceId: device.deviceId, command },
          {
            onSuccess: (response, { idempotencyKey }) => {
              statusRef.current?.focus();
              // A queued submission has no command yet to undo; withdrawing it is its undo.
              if (!isQueuedAnswer(response))
                offerUndo(...submittedUndo(device, command, response.id, idempotencyKey, timeZone));
              const endMs = Date.parse(command.endTime);
              form.setWindow(endMs, endMs + (endMs - Date.parse(command.startTime)));
            },
          },
        )
      }
      status={
        <p ref={statusRef} role="status" className="submit-status" tabIndex={-1}>
          {submit.isSuccess ? (
            isQueuedAnswer(submit.data) ? (
              <QueuedChangeLine what="Command" queued={submit.data.queued} timeZone={timeZone} />
            ) : (
              `Command submitted: ${submit.data.id}`
            )
          ) : (
            ''
          )}
        </p>
      }
    >
      <OutcomeCheckingStatus
        checking={submit.outcomeChecking}
        what="the command"
        onStop={submit.stopChecking}
      />
      {submit.isSuccess ? (
        <p className="field-hint">
          The window above now follows on from it, ready for a next command.
        </p>
      ) : null}
      {submit.isError && conflictGone && conflict.data ? (
        <p role="status" className="notice">
          Command {conflict.data.id}, which overlapped this window, is now{' '}
          {COMMAND_STATUS_WORDS[conflict.data.status].toLowerCase()}: the window is free. Submit
          again.
        </p>
      ) : null}
      {submit.isError && !conflictGone ? (
        <>
          <ErrorAlert
            error={submit.error}
            what="The command was not accepted."
            timeZone={timeZone}
            focusOnShow
          />
          {windowSubmitHint[submit.error.code] ? (
            <p className="field-hint">{windowSubmitHint[submit.error.code]}</p>
          ) : null}
        </>
      ) : null}
    </CommandForm>
  );
}
