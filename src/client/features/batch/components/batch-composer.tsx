import { useCallback, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { MAX_BATCH_DEVICES, type BatchSubmissionResponse } from '#domain/batch.ts';
import type { DeviceCommand } from '#domain/command.ts';
import type { Site } from '#domain/device.ts';
import { isQueuedAnswer, type QueuedAnswer } from '#domain/queued-change.ts';
import { useSubmitBatch } from '#client/commands/api/submit-batch.ts';
import { useUndo } from '#client/commands/api/undo-change.ts';
import { CommandForm } from '#client/commands/components/command-form.tsx';
import {
  DeliverableCheck,
  notFollowingWords,
} from '#client/commands/components/deliverable-panel.tsx';
import type { NotFollowingFlag } from '#domain/deliverable.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { combinedCapabilityCheck } from '#client/commands/lib/capability-checks.ts';
import { combineRanges } from '#client/commands/lib/combined-ranges.ts';
import { OutcomeCheckingStatus } from '#client/commands/components/outcome-checking-status.tsx';
import { QueuedChangeLine } from '#client/commands/components/queued-change-line.tsx';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { defaultCommandWindow, formatWindowInZone, zoneLabel } from '#client/lib/time.ts';
import {
  addDevices,
  canSubmitBatch,
  describeRefusals,
  parseDeviceIdList,
  removeDevices,
} from '../lib/batch-selection.ts';
import { resendWindow } from '../lib/device-actions.ts';
import { batchTimeZone, indexDevices, type SiteDevice } from '../lib/device-directory.ts';
import { DevicePicker } from './device-picker.tsx';
import { PrecheckPanel } from './precheck-panel.tsx';
import './batch.css';

interface BatchComposerProps {
  sites: readonly Site[];
  /** Called once accepted, with the batch ID; without one when the answer was lost and the batch found in histories. */
  onSubmitted: (batchCommandId: string | undefined) => void;
  /** A resend from a batch's page: its failed devices and command (window moved on if begun), pre-checked as any batch. */
  resend?: ResendDraft | undefined;
}

/** What a batch page hands the composer to send its command again to some of its devices. */
export interface ResendDraft {
  from: string;
  deviceIds: readonly string[];
  command: DeviceCommand;
}

/**
 * The batch composer: up to 50 devices across bound sites, one command with combined ranges, the
 * pre-check, submit. An accepted batch cannot be sent again from here, and its own commands are
 * not overlaps in the pre-check.
 */
export function BatchComposer({ sites, onSubmitted, resend }: BatchComposerProps) {
  const directory = useMemo(() => indexDevices(sites), [sites]);
  const known = useMemo(() => new Set(directory.keys()), [directory]);
  // A resend opens with its devices chosen; one no longer in a bound site is named, not added.
  const [opening] = useState(() => addDevices([], resend?.deviceIds ?? [], known));
  const [selected, setSelected] = useState<readonly string[]>(opening.selected);
  const [notices, setNotices] = useState<string[]>(() => describeRefusals(opening.refused));
  const selectedSet = useMemo(() => new Set(selected), [selected]);
  const selectedDevices = useMemo(
    () => selected.flatMap((id) => (directory.has(id) ? [directory.get(id) as SiteDevice] : [])),
    [selected, directory],
  );
  const capabilityCheck = useMemo(
    () => combinedCapabilityCheck(combineRanges(selectedDevices.map(({ device }) => device))),
    [selectedDevices],
  );
  const [initialWindow] = useState(() => {
    const nowMs = Date.now();
    const { start, end } = defaultCommandWindow(nowMs);
    if (resend)
      return {
        ...resendWindow(resend.command, nowMs, start.getTime()),
        powerControl: resend.command.powerControl,
      };
    return { startMs: start.getTime(), endMs: end.getTime() };
  });
  const { timeZone, mixed } = batchTimeZone(selectedDevices);
  const submit = useSubmitBatch();
  const accepted = submit.isSuccess;
  const { offerUndo } = useUndo();
  // Undo under the intent's one key, whichever try got the answer; not without a batch ID.
  const onAccepted = (
    response: BatchSubmissionResponse | QueuedAnswer,
    {
      idempotencyKey,
      devices,
      command,
    }: { idempotencyKey: string; devices: readonly string[]; command: DeviceCommand },
  ) => {
    // A queued batch has no batch ID yet: the page stays, saying when it goes.
    if (isQueuedAnswer(response)) return;
    const { batchCommandId } = response;
    if (batchCommandId)
      offerUndo(
        {
          kind: 'batch',
          batchCommandId,
          commands: response.commands.map((c) => ({ deviceId: c.deviceId, commandId: c.id })),
          key: idempotencyKey,
        },
        `Batch sent to ${devices.length} device${devices.length === 1 ? '' : 's'}: ${describePowerControl(command.powerControl)}, ${formatWindowInZone(command.startTime, command.endTime, timeZone)} (${zoneLabel(timeZone)})`,
        timeZone,
      );
    onSubmitted(batchCommandId);
  };

  const add = (deviceIds: string[], invalid: string[] = []) => {
    if (submit.isError) submit.reset();
    const change = addDevices(selected, deviceIds, known);
    setSelected(change.selected);
    setNotices([
      ...describeRefusals(change.refused),
      ...(invalid.length > 0 ? [`${invalid.join(', ')} not added: not a device ID.`] : []),
    ]);
  };
  const remove = (deviceIds: string[]) => {
    if (submit.isError) submit.reset();
    setSelected(removeDevices(selected, deviceIds));
    setNotices([]);
  };
  // Devices that did not follow their recent commands (the deliverable check's answer), and those
  // left out for it, to put back.
  const [flags, setFlags] = useState<ReadonlyMap<string, NotFollowingFlag>>(new Map());
  const onFlagged = useCallback(
    (list: readonly NotFollowingFlag[]) =>
      setFlags(new Map(list.map((flag) => [flag.deviceId, flag]))),
    [],
  );
  const [leftOut, setLeftOut] = useState<readonly string[]>([]);
  const leaveOut = (deviceIds: string[]) => {
    remove(deviceIds);
    setLeftOut(deviceIds);
  };
  const putBack = () => {
    add([...leftOut]);
    setLeftOut([]);
  };

  const count = selected.length;
  return (
    <div className="batch-composer stack">
      {resend ? (
        <p className="notice">
          Sending the command of {resend.from} again, as a new batch, to the{' '}
          {resend.deviceIds.length} device{resend.deviceIds.length === 1 ? '' : 's'} that failed
          there. Check the window and the pre-check below before submitting.
        </p>
      ) : null}
      {/* Keyboard users reach the command without tabbing past a site of 60 device checkboxes. */}
      <a className="skip-link" href="#batch-command-heading">
        Skip to the command
      </a>
      <DevicePicker
        sites={sites}
        directory={directory}
        selected={selectedSet}
        onAdd={(ids) => add(ids)}
        onRemove={remove}
        onPaste={(text) => {
          const { deviceIds, invalid } = parseDeviceIdList(text);
          add(deviceIds, invalid);
        }}
      />
      <section className="card stack" aria-labelledby="batch-selection-heading">
        <h2 id="batch-selection-heading">Selected devices</h2>
        <p role="status" className="batch-counter" aria-live="polite">
          <strong>
            {count} of {MAX_BATCH_DEVICES}
          </strong>{' '}
          devices selected
        </p>
        <div aria-live="assertive">
          {notices.length > 0 ? (
            <div role="alert" className="notice notice-warning">
              {notices.map((line) => (
                <p key={line}>{line}</p>
              ))}
            </div>
          ) : null}
        </div>
        {count === 0 ? (
          <p className="empty-state">
            No device selected yet: pick some above, or paste their IDs.
          </p>
        ) : (
          <>
            <ul className="batch-chips" aria-label="Devices in the batch">
              {selectedDevices.map(({ device }) => {
                const flag = flags.get(device.deviceId);
                return (
                  <li key={device.deviceId}>
                    <span className="mono">{device.deviceId}</span>
                    {flag ? (
                      <span className="not-following-flag">{notFollowingWords(flag)}</span>
                    ) : null}
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Remove ${device.deviceId}`}
                      onClick={() => remove([device.deviceId])}
                    >
                      ×
                    </button>
                  </li>
                );
              })}
            </ul>
            <div className="actions">
              <button type="button" onClick={() => remove([...selected])}>
                Remove all
              </button>
            </div>
          </>
        )}
      </section>
      <section className="card stack" aria-labelledby="batch-command-heading">
        <h2 id="batch-command-heading" tabIndex={-1}>
          Command
        </h2>
        <CommandForm
          idPrefix="batch"
          label="Batch command"
          capabilityCheck={capabilityCheck}
          timeZone={timeZone}
          powerControlHelp="The same command goes to every selected device. Set at least one control; controls left empty keep each device's current settings."
          initial={initialWindow}
          zoneNote={
            mixed
              ? 'The selected devices are in sites of different time zones, so the window is typed in UTC.'
              : count === 0
                ? 'Once devices are selected, the window is on their site’s clock.'
                : undefined
          }
          beforeSubmit={(draft) => (
            <>
              <PrecheckPanel
                devices={selectedDevices}
                draft={draft}
                onDrop={remove}
                batchCommandId={
                  submit.data && !isQueuedAnswer(submit.data)
                    ? submit.data.batchCommandId
                    : undefined
                }
              />
              {accepted ? null : (
                <DeliverableCheck
                  idPrefix="batch"
                  deviceIds={selected}
                  draft={draft}
                  timeZone={timeZone}
                  onFlagged={onFlagged}
                  onLeaveOut={leaveOut}
                  leftOut={leftOut}
                  onPutBack={putBack}
                />
              )}
            </>
          )}
          submitLabel={`Submit batch to ${count} device${count === 1 ? '' : 's'}`}
          canSubmit={canSubmitBatch(count) && !accepted}
          pending={submit.isPending}
          onNewInput={() => {
            // A refusal belongs to its attempt; an accepted batch stays accepted (no second send).
            if (submit.isError) submit.reset();
          }}
          onSubmit={(command) =>
            submit.mutate({ devices: [...selected], command }, { onSuccess: onAccepted })
          }
        />
        <OutcomeCheckingStatus
          checking={submit.outcomeChecking}
          what="the batch"
          onStop={submit.stopChecking}
        />
        {submit.isSuccess && isQueuedAnswer(submit.data) ? (
          <div role="status" className="notice">
            <p>
              <QueuedChangeLine what="Batch" queued={submit.data.queued} timeZone={timeZone} />
            </p>
            <p>
              It goes to all {submit.data.queued.deviceIds.length} devices at once;{' '}
              <Link to="/batches">the batches</Link> list it once it is sent.
            </p>
          </div>
        ) : null}
        {submit.isSuccess && !isQueuedAnswer(submit.data) ? (
          <div role="status" className="notice notice-success">
            <p>
              {submit.data.batchCommandId ? (
                <>
                  Batch submitted: <span className="mono">{submit.data.batchCommandId}</span>, one
                  command for each of {submit.data.commands.length + submit.data.unconfirmed.length}{' '}
                  devices.
                </>
              ) : (
                <>
                  Batch submitted: one command for each of{' '}
                  {submit.data.commands.length + submit.data.unconfirmed.length} devices.
                </>
              )}{' '}
              Each device&apos;s command is confirmed from its history; the batch page shows which
              are confirmed yet.
            </p>
            <p>
              {submit.data.batchCommandId ? (
                <Link to={`/batches/${encodeURIComponent(submit.data.batchCommandId)}`}>
                  Open batch {submit.data.batchCommandId}
                </Link>
              ) : (
                <Link to="/batches">Open the batches</Link>
              )}
            </p>
          </div>
        ) : null}
        {submit.isError ? (
          <ErrorAlert
            error={submit.error}
            what="The batch was not accepted; no device got it."
            timeZone={timeZone}
          />
        ) : null}
      </section>
    </div>
  );
}
