import type { ReactNode } from 'react';
import { isCancellable, type StatusRecord } from '#domain/command.ts';
import type { QueuedCancel } from '#domain/queued-change.ts';
import { CANCELLATION_REASON_WORDS } from '#domain/words.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { formatInZoneWithUtc, formatWindowInZone, formatWindowUtc } from '#client/lib/time.ts';
import { useCommandStatus } from '#client/commands/api/get-command-status.ts';
import { queuedCancelWords } from '#client/commands/lib/queued.ts';
import { problemWords } from '#client/lib/problem-words.ts';

interface CommandRowProps {
  record: StatusRecord;
  timeZone: string;
  knownAtMs: number;
  cancelling: boolean;
  /** Asks to cancel; absent when the operator may not cancel, and no Cancel shows. */
  onCancel?: (() => void) | undefined;
  /** The queued change that will cancel it: the row says when and offers Withdraw (a second cancel would be refused). */
  queuedCancel?: QueuedCancel | undefined;
  onWithdraw?: (() => void) | undefined;
  withdrawing?: boolean | undefined;
}

/** One command: ID, window on the site's clock with UTC, control, status and reason, and Cancel or Withdraw; polled until final. */
export function CommandRow({
  record,
  timeZone,
  knownAtMs,
  cancelling,
  onCancel,
  queuedCancel,
  onWithdraw,
  withdrawing = false,
}: CommandRowProps) {
  const status = useCommandStatus(record, knownAtMs);
  const idCellId = `command-${record.id}`;
  const utcWindow = formatWindowUtc(record.startTime, record.endTime);
  return (
    <tr>
      <th scope="row" id={idCellId} className="mono">
        {record.id}
      </th>
      <td title={utcWindow}>
        <time dateTime={record.startTime}>
          {formatWindowInZone(record.startTime, record.endTime, timeZone)}
        </time>
        <span className="window-utc secondary">{utcWindow}</span>
      </td>
      <td>{describePowerControl(record.powerControl)}</td>
      <td>
        <span className={`status status-${record.status}`}>{record.status}</span>
        {record.status === 'cancelled' && record.cancelReason ? (
          <span className="status-reason">{CANCELLATION_REASON_WORDS[record.cancelReason]}</span>
        ) : null}
        {queuedCancel ? (
          <span className="status-reason">
            <time
              dateTime={queuedCancel.goesAt}
              title={formatInZoneWithUtc(queuedCancel.goesAt, timeZone)}
            >
              {sentenceStart(queuedCancelWords(queuedCancel.goesAt, timeZone))}
            </time>
          </span>
        ) : null}
        {status.isError ? (
          <span className="status-reason">Status not refreshed: {problemWords(status.error)}</span>
        ) : null}
      </td>
      <td>
        {queuedCancel ? (
          onWithdraw && queuedCancel.withdrawable ? (
            <RowAction describedBy={idCellId} busy={withdrawing} onPress={onWithdraw}>
              {withdrawing ? 'Withdrawing…' : 'Withdraw'}
            </RowAction>
          ) : null
        ) : onCancel && isCancellable(record.status) ? (
          <RowAction describedBy={idCellId} busy={cancelling} onPress={onCancel}>
            {cancelling ? 'Cancelling…' : 'Cancel'}
          </RowAction>
        ) : null}
      </td>
    </tr>
  );
}

function sentenceStart(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A row's action, described by the row's command ID cell and off while it is under way. */
function RowAction(props: {
  describedBy: string;
  busy: boolean;
  onPress: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className="small"
      aria-describedby={props.describedBy}
      disabled={props.busy}
      onClick={props.onPress}
    >
      {props.children}
    </button>
  );
}
