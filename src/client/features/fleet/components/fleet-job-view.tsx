import { useMemo, useState, type ReactNode } from 'react';
import type { BatchCancelResult } from '#domain/batch.ts';
import { CANCELLATION_REASONS } from '#domain/command.ts';
import { isFinalJobState, progressOverTime, type FleetJob } from '#domain/fleet-job.ts';
import { CANCELLATION_REASON_WORDS } from '#domain/words.ts';
import { useCancelDeviceByDevice } from '#client/commands/api/cancel-device-by-device.ts';
import { useFleetJobAction } from '#client/commands/api/fleet-jobs.ts';
import {
  ChosenCancelConfirm,
  ChosenCancelOutcome,
  DeviceChoiceBar,
} from '#client/commands/components/chosen-devices.tsx';
import { ConfirmDialog } from '#client/components/confirm-dialog.tsx';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import type { DeviceColumns } from '#client/lib/device-columns.ts';
import { downloadFile } from '#client/lib/download-file.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import {
  formatInZone,
  formatInZoneWithUtc,
  formatUtc,
  formatWindowInZone,
  formatWindowInZoneWithUtc,
} from '#client/lib/time.ts';
import { countUnconfirmed } from '../lib/fleet-confirmation.ts';
import { fleetOutcomesCsv } from '../lib/fleet-csv.ts';
import { fleetFailedDevices, planFleetCancel } from '../lib/fleet-device-actions.ts';
import {
  deviceStatusWords,
  FLEET_BATCH_STATE_WORDS,
  FLEET_JOB_STATE_WORDS,
} from '../lib/fleet-words.ts';
import { FleetProgressChart } from './fleet-progress-chart.tsx';
import './fleet.css';
import { ColumnHeads } from '#client/components/column-heads.tsx';

/**
 * One fleet job (docs/fleet-dispatch.md): command, rollout, progress per device and over time, why
 * it stopped, pause/resume/cancel, outcomes as CSV, each batch with its devices; times on
 * `timeZone` with UTC. A command not found in history yet is "not confirmed yet".
 */
export function FleetJobView({
  job,
  timeZone,
  readAtMs,
  controlRefusal,
  clockNotice,
  onResend,
  delivery,
  addedColumns,
}: {
  job: FleetJob;
  /** The job's delivery (verdicts), from the page (features stay independent); after Progress. */
  delivery?: ReactNode;
  /** Columns added to each device's line and the CSV (each device's verdict). */
  addedColumns?: DeviceColumns | undefined;
  /** Resends to failed `deviceIds` through the composer; absent (or a plan's job): no resend. */
  onResend?: ((deviceIds: string[], command: FleetJob['command']) => void) | undefined;
  timeZone: string;
  /** The clock notice of the job's sites, from the page (features stay independent). */
  clockNotice?: ReactNode;
  /** Why the operator may not pause, resume or cancel: said instead of the buttons (the BFF refuses too). */
  controlRefusal?: string | undefined;
  /** When `job` was read, epoch ms: a live job's chart lines reach it. Default: its `updatedAt`. */
  readAtMs?: number;
}) {
  const action = useFleetJobAction(job.jobId);
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const { progress } = job;
  const tried = job.batches.filter((b) => b.state === 'sent' || b.state === 'failed').length;
  const cancelledTotal = Object.values(progress.cancelled).reduce((a, b) => a + (b ?? 0), 0);
  const final = isFinalJobState(job.state);
  // A dispatch plan's batches carry commands of their own.
  const planned = job.batches.some((batch) => batch.command !== undefined);
  const nowMs = readAtMs ?? Date.parse(job.updatedAt);
  const samples = useMemo(() => progressOverTime(job, nowMs), [job, nowMs]);
  const unconfirmed = countUnconfirmed(job, nowMs);

  const allDevices = [...new Set(job.batches.flatMap((b) => b.devices.map((d) => d.deviceId)))];
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [confirmingChosen, setConfirmingChosen] = useState(false);
  const [outcomes, setOutcomes] = useState<ReadonlyMap<string, BatchCancelResult>>(new Map());
  const deviceCancel = useCancelDeviceByDevice();
  const chosenCancel = planFleetCancel(job, chosen, nowMs);
  const failedIds = fleetFailedDevices(job, nowMs);
  const chosenResend = failedIds.filter((id) => chosen.has(id));
  const resendLimit = 50;
  const toggle = (deviceId: string) =>
    setChosen((now) => {
      const next = new Set(now);
      if (!next.delete(deviceId)) next.add(deviceId);
      return next;
    });
  const lastOutcomes = [...outcomes.values()];

  return (
    <div className="stack">
      <p
        role="status"
        className={
          job.state === 'aborted' || job.state === 'failed' ? 'notice notice-error' : 'notice'
        }
      >
        <strong>{FLEET_JOB_STATE_WORDS[job.state]}.</strong> {tried} of {job.batches.length} batches
        sent or tried.
        {job.sendingEndsAt ? (
          <>
            {' '}
            At the earliest, the last batch goes at{' '}
            {formatInZoneWithUtc(job.sendingEndsAt, timeZone)}, given the rollout&apos;s rate and
            the calls each device may take a minute.
          </>
        ) : null}
        {job.stopReason ? <> {job.stopReason}</> : null}
      </p>
      {clockNotice}
      <dl className="facts">
        <dt>Started</dt>
        <dd>
          {formatInZoneWithUtc(job.createdAt, timeZone)}
          {job.operatorName ? ` by ${job.operatorName}` : ''}
        </dd>
        {planned ? (
          <>
            <dt>Commands</dt>
            <dd>From a dispatch plan: each batch's command is in the batch table.</dd>
          </>
        ) : (
          <>
            <dt>Power control</dt>
            <dd>{describePowerControl(job.command.powerControl)}</dd>
            <dt>Effective window</dt>
            <dd>
              {formatWindowInZoneWithUtc(job.command.startTime, job.command.endTime, timeZone)}
            </dd>
          </>
        )}
        <dt>Rollout</dt>
        <dd>
          {job.rollout.batchSize} devices per batch, {job.rollout.batchesPerMinute} batches per
          minute,{' '}
          {job.rollout.abortPercent >= 100
            ? 'never stopped by failures'
            : `stopped when more than ${job.rollout.abortPercent}% of devices fail or are cancelled`}
        </dd>
      </dl>
      {controlRefusal && !final ? <p className="notice">{controlRefusal}</p> : null}
      <div className="actions">
        {job.state === 'running' && !controlRefusal ? (
          <button type="button" disabled={action.isPending} onClick={() => action.mutate('pause')}>
            Pause
          </button>
        ) : null}
        {job.state === 'paused' && !controlRefusal ? (
          <button type="button" disabled={action.isPending} onClick={() => action.mutate('resume')}>
            Resume
          </button>
        ) : null}
        {(job.state === 'running' || job.state === 'paused') && !controlRefusal ? (
          <button type="button" className="danger" onClick={() => setConfirmingCancel(true)}>
            Cancel job…
          </button>
        ) : null}
        <button
          type="button"
          onClick={() =>
            downloadFile(
              fleetOutcomesCsv(job, nowMs, addedColumns),
              `fleet-job-${job.jobId}.csv`,
              'text/csv',
            )
          }
        >
          Download outcomes (CSV)
        </button>
      </div>
      {action.isError ? <ErrorAlert error={action.error} what="The job did not change." /> : null}
      {confirmingCancel ? (
        <ConfirmDialog
          title="Cancel this fleet job?"
          confirmLabel="Cancel job and its commands"
          dismissLabel="Keep the job"
          onConfirm={() => {
            setConfirmingCancel(false);
            action.mutate('cancel');
          }}
          onDismiss={() => setConfirmingCancel(false)}
        >
          <p>
            Nothing more is sent, and the {progress.sent} device commands sent so far are cancelled
            with one batch cancel per batch. Commands already completed stay completed.
          </p>
        </ConfirmDialog>
      ) : null}
      <section className="card stack" aria-labelledby="fleet-progress-heading">
        <h2 id="fleet-progress-heading">Progress</h2>
        <dl className="fleet-progress">
          {(
            [
              ['Devices', progress.total],
              ['Sent', progress.sent],
              ['Received', progress.received],
              ['Executing', progress.executing],
              ['Completed', progress.completed],
              ['Cancelled', cancelledTotal],
              ['Failed', progress.failed],
              ...(progress.unbound > 0
                ? [['No longer followed (site unbound)', progress.unbound] as const]
                : []),
              ...(unconfirmed.confirming > 0
                ? [['Not confirmed yet', unconfirmed.confirming] as const]
                : []),
              ...(unconfirmed.notFound > 0
                ? [['Not found in history', unconfirmed.notFound] as const]
                : []),
            ] as const
          ).map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        {cancelledTotal > 0 ? (
          <ul>
            {CANCELLATION_REASONS.filter((reason) => progress.cancelled[reason]).map((reason) => (
              <li key={reason}>
                {progress.cancelled[reason]} cancelled: {CANCELLATION_REASON_WORDS[reason]}
              </li>
            ))}
          </ul>
        ) : null}
        {final ? null : (
          <p className="hint">Read again every 2 seconds while the job sends or cancels.</p>
        )}
        <FleetProgressChart samples={samples} timeZone={timeZone} />
      </section>
      {delivery}
      <section className="card stack fleet-batches" aria-labelledby="fleet-batches-heading">
        <h2 id="fleet-batches-heading">Batches</h2>
        <DeviceChoiceBar
          allIds={allDevices}
          failedIds={failedIds}
          chosen={chosen}
          onChoose={setChosen}
        />
        {controlRefusal ? null : (
          <div className="actions">
            <button
              type="button"
              className="danger"
              disabled={chosenCancel.toCancel.length === 0 || deviceCancel.isPending}
              onClick={() => setConfirmingChosen(true)}
            >
              {deviceCancel.isPending
                ? 'Cancelling…'
                : `Cancel selected (${chosenCancel.toCancel.length})…`}
            </button>
            {onResend && !planned ? (
              <button
                type="button"
                disabled={chosenResend.length === 0 || chosenResend.length > resendLimit}
                onClick={() => onResend(chosenResend, job.command)}
              >
                Resend to selected failed ({chosenResend.length})…
              </button>
            ) : null}
            <p className="hint">
              Cancel stops the chosen devices&apos; own commands, each on its own. Resend sends the
              job&apos;s command again, as a new batch of at most {resendLimit} devices, to the
              chosen devices that failed, after the batch pre-check. The devices are listed under
              each batch.
            </p>
          </div>
        )}
        <ChosenCancelOutcome outcomes={lastOutcomes} whereSaid="device" />
        {deviceCancel.isError ? (
          <ErrorAlert
            error={deviceCancel.error}
            what="The cancel of the chosen devices did not finish."
          />
        ) : null}
        {confirmingChosen ? (
          <ChosenCancelConfirm
            plan={chosenCancel}
            onDismiss={() => setConfirmingChosen(false)}
            onConfirm={() => {
              setConfirmingChosen(false);
              deviceCancel.mutate(chosenCancel.toCancel, {
                onSuccess: (answer) => setOutcomes(new Map(answer.map((r) => [r.deviceId, r]))),
              });
            }}
          />
        ) : null}
        <div className="table-scroll">
          <table>
            <ColumnHeads
              columns={[
                'Batch',
                'State',
                'Batch command',
                planned ? 'Command' : null,
                'Sent',
                'Tries',
                'Devices',
              ]}
            />
            <tbody>
              {job.batches.map((batch) => (
                <tr key={batch.index}>
                  <th scope="row">{batch.index + 1}</th>
                  <td>{FLEET_BATCH_STATE_WORDS[batch.state]}</td>
                  <td className="mono">{batch.batchCommandId ?? '—'}</td>
                  {planned ? (
                    <td>
                      {describePowerControl((batch.command ?? job.command).powerControl)},{' '}
                      {formatWindowInZone(
                        (batch.command ?? job.command).startTime,
                        (batch.command ?? job.command).endTime,
                        timeZone,
                      )}
                    </td>
                  ) : null}
                  <td>
                    {batch.sentAt ? (
                      <>
                        {timeZone === 'UTC' ? (
                          formatUtc(batch.sentAt)
                        ) : (
                          <>
                            {formatInZone(batch.sentAt, timeZone)}
                            <br />
                            <small>{formatUtc(batch.sentAt)}</small>
                          </>
                        )}
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>{batch.attempts}</td>
                  <td>
                    <details>
                      <summary>{batch.devices.length} devices</summary>
                      <ul className="fleet-devices">
                        {batch.devices.map((device) => (
                          <li key={device.deviceId}>
                            <input
                              type="checkbox"
                              checked={chosen.has(device.deviceId)}
                              onChange={() => toggle(device.deviceId)}
                              aria-label={`Select ${device.deviceId}`}
                            />
                            {/* The device's own line, apart from what other features add under it. */}
                            <span className="fleet-device-line">
                              <span className="mono">{device.deviceId}</span>:{' '}
                              {deviceStatusWords(device, batch, job, nowMs)}
                              {device.failure ? ` (${device.failure})` : ''}
                              {outcomes.has(device.deviceId)
                                ? outcomes.get(device.deviceId)?.success
                                  ? '. Last cancel: cancelled.'
                                  : `. Last cancel: not cancelled, ${outcomes.get(device.deviceId)?.error?.message ?? 'its status says why'}.`
                                : ''}
                            </span>
                            {addedColumns
                              ?.cells(device.deviceId, device.commandId)
                              .map((cell, index) => (
                                <div key={index} className="fleet-device-added">
                                  {cell}
                                </div>
                              ))}
                          </li>
                        ))}
                      </ul>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
