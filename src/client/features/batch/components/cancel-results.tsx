import { useEffect, useRef, useState } from 'react';
import type { BatchCancelResult } from '#domain/batch.ts';
import { isCancellable, type StatusRecord } from '#domain/command.ts';
import { isQueuedAnswer } from '#domain/queued-change.ts';
import { useCancelCommand } from '#client/commands/api/cancel-command.ts';
import { QueuedChangeLine } from '#client/commands/components/queued-change-line.tsx';
import type { QueuedLine } from '#client/commands/lib/queued.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { formatInZone, zoneLabel } from '#client/lib/time.ts';
import { QUEUED_CODE } from '#client/commands/api/cancel-device-by-device.ts';
import { cancelFailureWords, splitCancelResults } from '../lib/batch-progress.ts';

interface CancelResultsProps {
  results: readonly BatchCancelResult[];
  records: readonly (StatusRecord | undefined)[];
  /** When the results come from the ledger (an earlier cancel): when and by whom it was sent. */
  recorded?: { at: string; by: string; timeZone: string } | undefined;
  onDismiss: () => void;
}

/**
 * A batch cancel's outcome, successes and failures side by side, each failure with why and a retry
 * while cancellable. Never summed up as a success while any failed (docs/upstream.md, Batches).
 */
export function CancelResults({ results, records, recorded, onDismiss }: CancelResultsProps) {
  const { succeeded, failed } = splitCancelResults(results);
  const retry = useCancelCommand();
  const recordOf = (deviceId: string) => records.find((r) => r?.deviceId === deviceId);
  // Cancellable by its latest status, else by the one the cancel met; unknown: not offered.
  const retryable = (result: BatchCancelResult) => {
    // A queued cancel goes by itself; a retry would only queue a second one.
    if (result.error?.code === QUEUED_CODE) return false;
    const status = recordOf(result.deviceId)?.status ?? result.status;
    return status !== undefined && isCancellable(status);
  };
  // Each retried device: cancelled, or queued (its line follows the queued cancel).
  const [retried, setRetried] = useState<ReadonlyMap<string, string | QueuedLine>>(new Map());
  const retriedWords = (deviceId: string) => {
    const outcome = retried.get(deviceId);
    return typeof outcome === 'object' ? <QueuedChangeLine {...outcome} /> : outcome;
  };
  // Results of a cancel just sent are its outcome: focus goes to them, not back to the page.
  const headingRef = useRef<HTMLHeadingElement>(null);
  const fresh = recorded === undefined;
  useEffect(() => {
    if (fresh) headingRef.current?.focus();
  }, [fresh]);

  return (
    <section className="card stack" aria-labelledby="cancel-results-heading">
      <h2 id="cancel-results-heading" ref={headingRef} tabIndex={-1}>
        Batch cancel results
      </h2>
      {recorded ? (
        <p>
          Last batch cancel, sent {formatInZone(recorded.at, recorded.timeZone)} (
          {zoneLabel(recorded.timeZone)}) by {recorded.by}. Statuses may have moved on since: see
          the devices below.
        </p>
      ) : null}
      <p
        role="status"
        className={failed.length > 0 ? 'notice notice-warning' : 'notice notice-success'}
      >
        {failed.length === 0
          ? `All ${succeeded.length} device commands were cancelled.`
          : `Partly cancelled: ${succeeded.length} of ${results.length} device commands cancelled, ${failed.length} not cancelled.`}
      </p>
      <div className="cancel-results">
        <div>
          <h3>Cancelled ({succeeded.length})</h3>
          {succeeded.length === 0 ? (
            <p className="empty-state">None.</p>
          ) : (
            <ul aria-label="Cancelled devices">
              {succeeded.map((r) => (
                <li key={r.deviceId}>
                  <span className="mono">{r.deviceId}</span>: cancelled
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h3>Not cancelled ({failed.length})</h3>
          {failed.length === 0 ? (
            <p className="empty-state">None.</p>
          ) : (
            <ul aria-label="Devices not cancelled">
              {failed.map((r) => {
                const { deviceId, commandId } = r;
                return (
                  <li key={deviceId}>
                    <span className="mono">{deviceId}</span>:{' '}
                    {retriedWords(deviceId) ??
                      (r.error?.code === QUEUED_CODE
                        ? r.error.message
                        : // The vendor's result may not say the status: the command's record does.
                          cancelFailureWords(
                            { ...r, status: r.status ?? recordOf(deviceId)?.status },
                            recordOf(deviceId)?.cancelReason,
                          ))}
                    {commandId !== undefined && retryable(r) && !retried.has(deviceId) ? (
                      <>
                        {' '}
                        <button
                          type="button"
                          disabled={retry.isPending}
                          onClick={() =>
                            retry.mutate(
                              { deviceId, commandId },
                              {
                                onSuccess: (answer) =>
                                  setRetried((done) =>
                                    new Map(done).set(
                                      deviceId,
                                      isQueuedAnswer(answer)
                                        ? {
                                            what: `Cancel of command ${commandId}`,
                                            queued: answer.queued,
                                            timeZone: 'UTC',
                                          }
                                        : 'cancelled on retry.',
                                    ),
                                  ),
                              },
                            )
                          }
                        >
                          Retry cancel of {deviceId}
                        </button>
                      </>
                    ) : null}
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      </div>
      {retry.isError ? (
        <ErrorAlert error={retry.error} what="The retried cancel was refused." />
      ) : null}
      <div className="actions">
        <button type="button" className="secondary" onClick={onDismiss}>
          Hide results
        </button>
      </div>
    </section>
  );
}
