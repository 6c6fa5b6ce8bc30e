import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { BatchCancelResult } from '../../../../domain/batch.ts';
import { isQueuedAnswer, type QueuedAnswer } from '../../../../domain/queued-change.ts';
import { isCancellable, type StatusRecord } from '../../../../domain/command.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '../../../../domain/words.ts';
import { useCancelBatch } from '../../../commands/api/cancel-batch.ts';
import { useCommandStatuses } from '../../../commands/api/get-command-status.ts';
import { queuedWords } from '../../../commands/lib/queued.ts';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { ErrorAlert } from '../../../components/error-alert.tsx';
import { describePowerControl } from '../../../lib/power-control-words.ts';
import { formatInZoneWithUtc, formatWindowInZoneWithUtc } from '../../../lib/time.ts';
import { useLatestBatchCancel } from '../api/batch-cancels.ts';
import { useCancelDeviceByDevice } from '../api/cancel-device-by-device.ts';
import { countStatuses, summarizeBatch } from '../lib/batch-progress.ts';
import {
  batchDevices,
  CONFIRMING_REFRESH_MS,
  type BatchDeviceState,
  type BatchRecord,
} from '../lib/ledger-batches.ts';
import { BatchProgressBar } from './batch-progress-bar.tsx';
import { CancelResults } from './cancel-results.tsx';
import './batch.css';
import { problemWords } from '../../../lib/problem-words.ts';

function statusWords(record: StatusRecord | undefined): string {
  if (!record) return 'Not read yet';
  return COMMAND_STATUS_WORDS[record.status];
}

function reasonWords(record: StatusRecord | undefined): string {
  if (!record?.cancelReason) return '';
  return `${CANCELLATION_REASON_WORDS[record.cancelReason]} (${record.cancelReason})`;
}

/** The batch's name in a sentence: its batch ID, or "this batch" when none was learnt. */
const batchName = (record: BatchRecord) =>
  record.batchCommandId ? `batch ${record.batchCommandId}` : 'this batch';

/**
 * One batch as the ledger recorded it: its command and times (on the site's clock, else UTC,
 * said so), a progress bar with the counts over every device sent (statuses polled from each
 * device command found, and the devices not confirmed yet or never found), a per-device table
 * with reasons in words, and cancel with confirmation whose per-device results show successes and
 * failures side by side. A device's command is found in its history after the batch was sent
 * (docs/decisions/006, section 5): until then the device says "Not confirmed yet" and the page
 * reads the batch again; once the window ended without it, "Not found in the device's history",
 * with what to do. A batch without a batch ID is cancelled device by device.
 */
export function BatchPage({
  record,
  justSubmitted = false,
  askCancel = false,
  onCancelAsked,
  dispatchRefusal,
  clockNotice,
  historyPathOf,
}: {
  record: BatchRecord;
  /** Opened by the composer right after sending: say so, and take focus (the outcome). */
  justSubmitted?: boolean;
  /** Opened to cancel the batch: the cancel's confirmation opens at once. */
  askCancel?: boolean;
  /** Called once the confirmation asked for by `askCancel` is open. */
  onCancelAsked?: () => void;
  /** Why the operator may not cancel, in words (a role that only reads); no Cancel shows then. */
  dispatchRefusal?: string | undefined;
  /** The clock notice of the batch's site(s), from the page (features stay independent). */
  clockNotice?: ReactNode;
  /** Where a device's command history is, when its site is bound. */
  historyPathOf?: ((deviceId: string) => string | undefined) | undefined;
}) {
  const canCancel = dispatchRefusal === undefined;
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (justSubmitted) headingRef.current?.focus();
  }, [justSubmitted]);
  const devices = batchDevices(record);
  const statuses = useCommandStatuses(record.commands);
  const records = statuses.map((s) => s.data);
  const recordOf = new Map(record.commands.map((c, i) => [c.deviceId, i]));
  const counts = countStatuses(records, {
    confirming: devices.filter((d) => d.kind === 'confirming').length,
    notFound: devices.filter((d) => d.kind === 'notFound').length,
  });
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
  const cancellable = record.commands.filter((_command, i) => {
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
            The batch cancel is not sent yet. {queuedWords(queuedCancel, timeZone)}
          </p>
        ) : null}
        {batchCancel.isError ? (
          <ErrorAlert error={batchCancel.error} what="The batch cancel was not carried out." />
        ) : null}
      </section>
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
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Device commands of the batch</caption>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Command</th>
                <th scope="col">Status</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {devices.map((device) => {
                const index = recordOf.get(device.deviceId);
                const status = index === undefined ? undefined : statuses[index];
                return (
                  <DeviceRow
                    key={device.deviceId}
                    device={device}
                    status={status}
                    historyPath={historyPathOf?.(device.deviceId)}
                  />
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
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

/** What a cancel of the batch will do, device by device, before it is confirmed. */
function cancelWords(record: BatchRecord, found: number, confirming: number): string {
  const total = batchDevices(record).length;
  if (!record.batchCommandId)
    return `${found} device command${found === 1 ? ' is' : 's are'} still received or executing (or not read yet) and ${found === 1 ? 'is' : 'are'} cancelled one by one, since this batch has no batch ID.${confirming > 0 ? ` The ${confirming} devices whose command is not confirmed yet cannot be cancelled until it is found.` : ''}`;
  const cancellable = found + confirming;
  if (cancellable === total)
    return `All ${total} device commands are still received or executing, or not confirmed yet; each is cancelled.`;
  return `${cancellable} of the ${total} device commands are still received or executing (or not read or confirmed yet) and are cancelled; the other ${total - cancellable} already ended or were not found and stay as they are.`;
}

/** One device of the batch: its command and status once found, else where the search stands. */
function DeviceRow({
  device,
  status,
  historyPath,
}: {
  device: BatchDeviceState;
  status: ReturnType<typeof useCommandStatuses>[number] | undefined;
  historyPath: string | undefined;
}) {
  const data = status?.data;
  const history = historyPath ? (
    <Link to={historyPath}>Check the history of {device.deviceId}</Link>
  ) : (
    `Check the history of ${device.deviceId}`
  );
  return (
    <tr data-device={device.deviceId}>
      <th scope="row" className="mono">
        {device.deviceId}
      </th>
      {device.kind === 'found' ? (
        <>
          <td className="mono">{device.commandId}</td>
          <td>
            <span className={data ? `status status-${data.status}` : 'status'}>
              {statusWords(data)}
            </span>
          </td>
          <td>
            {status?.isError && !data
              ? `Could not read its status: ${problemWords(status.error)}`
              : reasonWords(data)}
          </td>
        </>
      ) : device.kind === 'confirming' ? (
        <>
          <td>Not confirmed yet</td>
          <td>
            <span className="status">Looking for it in the device&apos;s history</span>
          </td>
          <td />
        </>
      ) : (
        <>
          <td>Not found in the device&apos;s history</td>
          <td>
            <span className="status">No command</span>
          </td>
          <td>
            The window has ended and the device&apos;s history holds no command of this batch: the
            device most likely never got it. {history} before sending it again, so it does not get
            the command twice.
          </td>
        </>
      )}
    </tr>
  );
}
