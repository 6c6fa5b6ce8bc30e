import { useEffect, useRef, useState } from 'react';
import type { BatchCancelResponse } from '../../../../domain/batch.ts';
import { isCancellable, type StatusRecord } from '../../../../domain/command.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '../../../../domain/words.ts';
import { useCancelBatch } from '../../../commands/api/cancel-batch.ts';
import { useCommandStatuses } from '../../../commands/api/get-command-status.ts';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { ErrorAlert } from '../../../components/error-alert.tsx';
import { describePowerControl } from '../../../lib/power-control-words.ts';
import { formatInZoneWithUtc, formatWindowInZoneWithUtc } from '../../../lib/time.ts';
import { useLatestBatchCancel } from '../api/batch-cancels.ts';
import { countStatuses, summarizeBatch } from '../lib/batch-progress.ts';
import type { BatchRecord } from '../lib/ledger-batches.ts';
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

/**
 * One batch as the ledger recorded it: its command and times (on the site's clock the ledger
 * recorded, else UTC, said so), a progress bar with the counts per status polled from each
 * device command, a per-device table with reasons in words, and batch cancel with confirmation
 * whose per-device results show successes and failures side by side.
 */
export function BatchPage({
  record,
  justSubmitted = false,
  askCancel = false,
  onCancelAsked,
  dispatchRefusal,
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
}) {
  const canCancel = dispatchRefusal === undefined;
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (justSubmitted) headingRef.current?.focus();
  }, [justSubmitted]);
  const statuses = useCommandStatuses(record.commands);
  const records = statuses.map((s) => s.data);
  const counts = countStatuses(records);
  const summary = summarizeBatch(counts);
  const cancel = useCancelBatch();
  const [confirming, setConfirming] = useState(false);
  const [results, setResults] = useState<BatchCancelResponse>();
  const [resultsHidden, setResultsHidden] = useState(false);
  // Opened later (from the batch list), the page shows the ledger's latest cancel instead.
  const pastCancel = useLatestBatchCancel(record.batchCommandId);
  const recorded = results ? undefined : pastCancel.data;
  const cancellableCount = records.filter((r) => r === undefined || isCancellable(r.status)).length;
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

  return (
    <div className="stack">
      <h1 ref={headingRef} tabIndex={-1}>
        Batch <span className="mono">{record.batchCommandId}</span>
      </h1>
      {justSubmitted ? (
        <p className="notice notice-success">
          Batch sent: one device command for each of its {record.commands.length} devices. Their
          statuses follow below.
        </p>
      ) : null}
      <dl className="facts">
        <dt>Submitted</dt>
        <dd>{formatInZoneWithUtc(record.submittedAt, timeZone)}</dd>
        <dt>Devices</dt>
        <dd>{record.commands.length}</dd>
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
      <section className="card stack" aria-labelledby="batch-progress-heading">
        <h2 id="batch-progress-heading">Progress</h2>
        <p
          role="status"
          className={summary.tone === 'info' ? 'notice' : `notice notice-${summary.tone}`}
        >
          {summary.words}
        </p>
        <BatchProgressBar counts={counts} />
        {canCancel ? (
          <div className="actions">
            <button
              type="button"
              className="danger"
              disabled={!anyCancellable || cancel.isPending}
              onClick={() => setConfirming(true)}
            >
              {cancel.isPending ? 'Cancelling…' : 'Cancel batch'}
            </button>
          </div>
        ) : (
          <p className="field-hint">{dispatchRefusal}</p>
        )}
        {cancel.isError ? (
          <ErrorAlert error={cancel.error} what="The batch cancel was not carried out." />
        ) : null}
      </section>
      {!resultsHidden && (results ?? recorded) ? (
        <CancelResults
          results={results?.results ?? recorded?.results ?? []}
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
              {record.commands.map((c, i) => {
                const status = statuses[i];
                const data = status?.data;
                return (
                  <tr key={c.deviceId} data-device={c.deviceId}>
                    <th scope="row" className="mono">
                      {c.deviceId}
                    </th>
                    <td className="mono">{c.id}</td>
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
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
      {confirming && canCancel ? (
        <ConfirmDialog
          title={`Cancel batch ${record.batchCommandId}?`}
          confirmLabel="Cancel batch"
          dismissLabel="Keep batch"
          onDismiss={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            const deviceIds = record.commands.map((c) => c.deviceId);
            cancel.mutate(
              { batchCommandId: record.batchCommandId, deviceIds },
              {
                onSuccess: (answer) => {
                  setResults(answer);
                  setResultsHidden(false);
                },
              },
            );
          }}
        >
          <p>
            {cancellableCount === record.commands.length
              ? `All ${cancellableCount} device commands are still received or executing; each is cancelled.`
              : `${cancellableCount} of the ${record.commands.length} device commands are still received or executing (or not read yet) and are cancelled; the other ${record.commands.length - cancellableCount} already ended and stay as they are.`}{' '}
            Each device succeeds or fails on its own: a completed command cannot be cancelled.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
