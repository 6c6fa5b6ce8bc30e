import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { BatchCancelResult } from '#domain/batch.ts';
import { isQueuedAnswer, type QueuedAnswer } from '#domain/queued-change.ts';
import { isCancellable } from '#domain/command.ts';
import { useCancelBatch } from '#client/commands/api/cancel-batch.ts';
import { useCommandStatuses } from '#client/commands/api/get-command-status.ts';
import { QueuedChangeLine } from '#client/commands/components/queued-change-line.tsx';
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
import { formatInZoneWithUtc, formatWindowInZoneWithUtc } from '#client/lib/time.ts';
import { useLatestBatchCancel } from '../api/batch-cancels.ts';
import {
  QUEUED_CODE,
  useCancelDeviceByDevice,
} from '#client/commands/api/cancel-device-by-device.ts';
import { batchDevicesCsv } from '../lib/batch-csv.ts';
import { cancelFailureWords, countStatuses, summarizeBatch } from '../lib/batch-progress.ts';
import {
  batchDeviceWords,
  hasFailed,
  planCancel,
  planResend,
  type BatchDeviceView,
  type BatchDeviceWords,
} from '../lib/device-actions.ts';
import {
  batchDevices,
  CONFIRMING_REFRESH_MS,
  followedCommands,
  endedBeforeUnbindStatuses,
  unfollowedCounts,
  type BatchRecord,
} from '../lib/ledger-batches.ts';
import { BatchDeviceRow } from './batch-device-row.tsx';
import { BatchProgressBar } from './batch-progress-bar.tsx';
import { CancelResults } from './cancel-results.tsx';
import './batch.css';
import { problemWords } from '#client/lib/problem-words.ts';
import { ColumnHeads } from '#client/components/column-heads.tsx';

const batchName = (record: BatchRecord) =>
  record.batchCommandId ? `batch ${record.batchCommandId}` : 'this batch';

/**
 * One batch as the ledger recorded it: command, progress over every device sent, a per-device
 * table, and a confirmed cancel whose results show successes and failures side by side. Until a
 * device's command is found in its history it is "Not confirmed yet" (docs/decisions/006,
 * section 5). Without a batch ID it is cancelled device by device.
 */
export function BatchPage({
  record,
  justSubmitted = false,
  askCancel = false,
  onCancelAsked,
  dispatchRefusal,
  clockNotice,
  historyPathOf,
  devicePathOf,
  onResend,
  delivery,
  addedColumns,
}: {
  record: BatchRecord;
  /** Opened by the composer right after sending: say so, and take focus (the outcome). */
  justSubmitted?: boolean;
  /** Opened to cancel the batch: the cancel's confirmation opens at once. */
  askCancel?: boolean;
  onCancelAsked?: () => void;
  /** Why the operator may not cancel, in words (a role that only reads); no Cancel shows then. */
  dispatchRefusal?: string | undefined;
  /** The clock notice of the batch's site(s), from the page (features stay independent). */
  clockNotice?: ReactNode;
  historyPathOf?: ((deviceId: string) => string | undefined) | undefined;
  devicePathOf?: ((deviceId: string) => string | undefined) | undefined;
  /** Resends the command to failed `deviceIds` through the composer and its pre-check; absent: no resend. */
  onResend?: ((deviceIds: string[], command: BatchRecord['command']) => void) | undefined;
  /** The batch's delivery (verdicts), from the page (features stay independent); after Progress. */
  delivery?: ReactNode;
  /** Columns added to the device table and its CSV after the reason (each device's verdict). */
  addedColumns?: DeviceColumns | undefined;
}) {
  const canCancel = dispatchRefusal === undefined;
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (justSubmitted) headingRef.current?.focus();
  }, [justSubmitted]);
  const devices = batchDevices(record);
  // A device whose site is unbound is followed no more: its status is not read.
  const followed = followedCommands(record);
  const statuses = useCommandStatuses(followed);
  const records = statuses.map((s) => s.data);
  const recordOf = new Map(followed.map((c, i) => [c.deviceId, i]));
  // A device whose command ended before its site was unbound counts as it ended.
  const counts = countStatuses(
    [...records, ...endedBeforeUnbindStatuses(devices)],
    unfollowedCounts(devices),
  );
  const summary = summarizeBatch(counts);
  const batchCancel = useCancelBatch();
  const deviceCancel = useCancelDeviceByDevice();
  const cancelling = batchCancel.isPending || deviceCancel.isPending;
  const [confirming, setConfirming] = useState(false);
  const [results, setResults] = useState<BatchCancelResult[]>();
  const [queuedCancel, setQueuedCancel] = useState<QueuedAnswer>();
  const [resultsHidden, setResultsHidden] = useState(false);
  // Opened later (from the batch list), the page shows the ledger's latest cancel instead.
  const pastCancel = useLatestBatchCancel(record.batchCommandId);
  const recorded = results ? undefined : pastCancel.data;
  // A batch ID cancels every command of the batch, found or not; without it, only those found.
  const cancellable = followed.filter((_command, i) => {
    const data = records[i];
    return data === undefined || isCancellable(data.status);
  });
  const cancellableCount = cancellable.length + (record.batchCommandId ? counts.confirming : 0);
  const anyCancellable = cancellableCount > 0;
  // Each arrival asking for the cancel opens its confirmation once (state adjusted while rendering).
  const [cancelAsked, setCancelAsked] = useState(false);
  if (askCancel !== cancelAsked) {
    setCancelAsked(askCancel);
    if (askCancel && anyCancellable && canCancel) setConfirming(true);
  }
  useEffect(() => {
    if (askCancel) onCancelAsked?.();
  }, [askCancel, onCancelAsked]);
  const { command, timeZone } = record;
  const total = devices.length;

  // Each device's cancel is its own call: one refusal never stops the others.
  const views: BatchDeviceView[] = devices.map((device) => {
    const index = recordOf.get(device.deviceId);
    return { device, record: index === undefined ? undefined : records[index] };
  });
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [rowOutcomes, setRowOutcomes] = useState<ReadonlyMap<string, BatchCancelResult>>(new Map());
  const [confirmingChosen, setConfirmingChosen] = useState(false);
  const chosenCancel = planCancel(views, chosen);
  const chosenResend = planResend(views, chosen);
  const failedIds = views.filter(hasFailed).map((view) => view.device.deviceId);
  const outcomeRef = useRef<HTMLParagraphElement>(null);
  const [outcomeShown, setOutcomeShown] = useState(false);
  useEffect(() => {
    if (outcomeShown) outcomeRef.current?.focus();
  }, [outcomeShown]);
  const toggle = (deviceId: string) =>
    setChosen((now) => {
      const next = new Set(now);
      if (!next.delete(deviceId)) next.add(deviceId);
      return next;
    });
  const recordFor = (deviceId: string) => views.find((v) => v.device.deviceId === deviceId)?.record;
  // A cancel queued for the device's next call to the vendor says when it goes, not why it failed.
  const failureWords = (result: BatchCancelResult) =>
    result.error?.code === QUEUED_CODE
      ? result.error.message
      : cancelFailureWords(
          { ...result, status: result.status ?? recordFor(result.deviceId)?.status },
          recordFor(result.deviceId)?.cancelReason,
        );
  const rowWords: BatchDeviceWords[] = views.map((view) => {
    const index = recordOf.get(view.device.deviceId);
    const status = index === undefined ? undefined : statuses[index];
    return batchDeviceWords(
      view,
      rowOutcomes.get(view.device.deviceId),
      failureWords,
      status?.isError ? problemWords(status.error) : undefined,
    );
  });
  const sendChosenCancel = () => {
    setConfirmingChosen(false);
    setOutcomeShown(false);
    deviceCancel.mutate(chosenCancel.toCancel, {
      onSuccess: (answer) => {
        setRowOutcomes(new Map(answer.map((result) => [result.deviceId, result])));
        setOutcomeShown(true);
      },
    });
  };
  const lastOutcomes = [...rowOutcomes.values()];

  const sendCancel = () => {
    setConfirming(false);
    setQueuedCancel(undefined);
    const onSuccess = (answer: BatchCancelResult[]) => {
      setResults(answer);
      setResultsHidden(false);
    };
    if (record.batchCommandId)
      batchCancel.mutate(
        { batchCommandId: record.batchCommandId, deviceIds: record.deviceIds },
        {
          onSuccess: (answer) => {
            if (isQueuedAnswer(answer)) return setQueuedCancel(answer);
            onSuccess(answer.results);
          },
        },
      );
    else
      deviceCancel.mutate(
        cancellable.map((c) => ({ deviceId: c.deviceId, commandId: c.id })),
        { onSuccess },
      );
  };

  return (
    <div className="stack">
      <h1 ref={headingRef} tabIndex={-1}>
        {record.batchCommandId ? (
          <>
            Batch <span className="mono">{record.batchCommandId}</span>
          </>
        ) : (
          `Batch sent ${formatInZoneWithUtc(record.submittedAt, timeZone)}`
        )}
      </h1>
      {justSubmitted ? (
        <p className="notice notice-success">
          Batch sent to its {total} devices. Each device&apos;s command is confirmed from its
          history; their statuses follow below.
        </p>
      ) : null}
      {clockNotice}
      <dl className="facts">
        <dt>Submitted</dt>
        <dd>{formatInZoneWithUtc(record.submittedAt, timeZone)}</dd>
        <dt>Devices</dt>
        <dd>{total}</dd>
        <dt>Power control</dt>
        <dd>{describePowerControl(command.powerControl)}</dd>
        <dt>Effective window</dt>
        <dd>{formatWindowInZoneWithUtc(command.startTime, command.endTime, timeZone)}</dd>
      </dl>
      {record.timeZoneRecorded ? null : (
        <p className="notice">
          Times on this page are in UTC: the ledger recorded no single site time zone for this batch
          (an older batch, or devices in sites of different zones).
        </p>
      )}
      {record.batchCommandId ? null : (
        <p className="notice">
          The vendor&apos;s answer to this batch was lost, so its batch ID is not known: its device
          commands were found in the devices&apos; histories, and it is cancelled device by device.
        </p>
      )}
      <section className="card stack" aria-labelledby="batch-progress-heading">
        <h2 id="batch-progress-heading">Progress</h2>
        <p
          role="status"
          className={summary.tone === 'info' ? 'notice' : `notice notice-${summary.tone}`}
        >
          {summary.words}
        </p>
        <BatchProgressBar counts={counts} />
        {record.confirmation === 'confirming' ? (
          <p className="field-hint">
            Devices not confirmed yet are looked for in their histories; this page reads the batch
            again every {CONFIRMING_REFRESH_MS / 1000} seconds until each is found or its window has
            ended.
          </p>
        ) : null}
        {canCancel ? (
          <div className="actions">
            <button
              type="button"
              className="danger"
              disabled={!anyCancellable || cancelling}
              onClick={() => setConfirming(true)}
            >
              {cancelling ? 'Cancelling…' : 'Cancel batch'}
            </button>
          </div>
        ) : (
          <p className="field-hint">{dispatchRefusal}</p>
        )}
        {queuedCancel ? (
          <p role="status" className="notice">
            <QueuedChangeLine
              what="Batch cancel"
              waitingWords="The batch cancel is not sent yet."
              queued={queuedCancel.queued}
              timeZone={timeZone}
            />
          </p>
        ) : null}
        {batchCancel.isError ? (
          <ErrorAlert error={batchCancel.error} what="The batch cancel was not carried out." />
        ) : null}
      </section>
      {delivery}
      {!resultsHidden && (results ?? recorded) ? (
        <CancelResults
          results={results ?? recorded?.results ?? []}
          records={records}
          recorded={recorded ? { ...recorded, timeZone } : undefined}
          onDismiss={() => setResultsHidden(true)}
        />
      ) : null}
      {pastCancel.isError ? (
        <p className="field-hint">
          Earlier batch cancels could not be read from the ledger: {problemWords(pastCancel.error)}
        </p>
      ) : null}
      <section className="card stack" aria-labelledby="batch-devices-heading">
        <h2 id="batch-devices-heading">Devices</h2>
        <DeviceChoiceBar
          allIds={devices.map((d) => d.deviceId)}
          failedIds={failedIds}
          chosen={chosen}
          onChoose={setChosen}
          counter={{ role: 'status', className: 'batch-counter' }}
        />
        {canCancel ? (
          <div className="actions">
            <button
              type="button"
              className="danger"
              disabled={chosenCancel.toCancel.length === 0 || cancelling}
              onClick={() => setConfirmingChosen(true)}
            >
              {deviceCancel.isPending
                ? 'Cancelling…'
                : `Cancel selected (${chosenCancel.toCancel.length})…`}
            </button>
            {onResend ? (
              <button
                type="button"
                disabled={chosenResend.length === 0}
                onClick={() => onResend(chosenResend, command)}
              >
                Resend to selected failed ({chosenResend.length})…
              </button>
            ) : null}
            <p className="field-hint">
              Cancel stops the chosen devices&apos; own commands, each on its own. Resend sends the
              batch&apos;s command again, as a new batch, to the chosen devices that failed
              (cancelled by the vendor, or never found in their history), after the pre-check.
            </p>
          </div>
        ) : null}
        <ChosenCancelOutcome outcomes={lastOutcomes} whereSaid="row" ref={outcomeRef} />
        {deviceCancel.isError ? (
          <ErrorAlert
            error={deviceCancel.error}
            what="The cancel of the chosen devices did not finish."
          />
        ) : null}
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Device commands of the batch</caption>
            <ColumnHeads
              columns={[
                <span className="visually-hidden">Selected</span>,
                'Device',
                'Command',
                'Status',
                'Reason',
                ...(addedColumns?.headings ?? []),
                lastOutcomes.length > 0 ? 'Last cancel' : null,
              ]}
            />
            <tbody>
              {views.map((view, i) => (
                <BatchDeviceRow
                  key={view.device.deviceId}
                  view={view}
                  words={rowWords[i] as BatchDeviceWords}
                  chosen={chosen.has(view.device.deviceId)}
                  onToggle={() => toggle(view.device.deviceId)}
                  showOutcome={lastOutcomes.length > 0}
                  devicePath={devicePathOf?.(view.device.deviceId)}
                  historyPath={historyPathOf?.(view.device.deviceId)}
                  addedCells={addedColumns?.cells(view.device.deviceId)}
                />
              ))}
            </tbody>
          </table>
        </div>
        <div className="actions">
          <button
            type="button"
            className="secondary"
            onClick={() =>
              downloadFile(
                batchDevicesCsv(rowWords, addedColumns),
                `batch-${record.batchCommandId ?? `entry-${record.ledgerId}`}.csv`,
                'text/csv',
              )
            }
          >
            Download devices (CSV)
          </button>
        </div>
      </section>
      {confirmingChosen && canCancel ? (
        <ChosenCancelConfirm
          plan={chosenCancel}
          whereSaid="its row says which"
          onDismiss={() => setConfirmingChosen(false)}
          onConfirm={sendChosenCancel}
        />
      ) : null}
      {confirming && canCancel ? (
        <ConfirmDialog
          title={`Cancel ${batchName(record)}?`}
          confirmLabel="Cancel batch"
          dismissLabel="Keep batch"
          onDismiss={() => setConfirming(false)}
          onConfirm={sendCancel}
        >
          <p>
            {cancelWords(record, cancellable.length, counts.confirming)} Each device succeeds or
            fails on its own: a completed command cannot be cancelled.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

function cancelWords(record: BatchRecord, found: number, confirming: number): string {
  const total = batchDevices(record).length;
  if (!record.batchCommandId)
    return `${found} device command${found === 1 ? ' is' : 's are'} still received or executing (or not read yet) and ${found === 1 ? 'is' : 'are'} cancelled one by one, since this batch has no batch ID.${confirming > 0 ? ` The ${confirming} devices whose command is not confirmed yet cannot be cancelled until it is found.` : ''}`;
  const cancellable = found + confirming;
  if (cancellable === total)
    return `All ${total} device commands are still received or executing, or not confirmed yet; each is cancelled.`;
  return `${cancellable} of the ${total} device commands are still received or executing (or not read or confirmed yet) and are cancelled; the other ${total - cancellable} already ended or were not found and stay as they are.`;
}
