import { isCancellable, type StatusRecord } from '../../../../domain/command.ts';
import { CANCELLATION_REASON_WORDS } from '../../../../domain/words.ts';
import { describePowerControl } from '../../../lib/power-control-words.ts';
import { formatWindowInZone, formatWindowUtc } from '../../../lib/time.ts';
import { useCommandStatus } from '../../../commands/api/get-command-status.ts';
import { problemWords } from '../../../lib/problem-words.ts';

interface CommandRowProps {
  record: StatusRecord;
  timeZone: string;
  /** When the list holding `record` was fetched (epoch ms): polling starts from there. */
  knownAtMs: number;
  cancelling: boolean;
  /** Asks to cancel; absent when the operator may not cancel, and no Cancel shows. */
  onCancel?: (() => void) | undefined;
}

/**
 * One command: ID, window on the site's clock (UTC below and on hover), control in short form,
 * status word (with the cancellation reason in words), and Cancel while received or executing.
 * A command that is not final is polled here until it is.
 */
export function CommandRow({ record, timeZone, knownAtMs, cancelling, onCancel }: CommandRowProps) {
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
        {status.isError ? (
          <span className="status-reason">Status not refreshed: {problemWords(status.error)}</span>
        ) : null}
      </td>
      <td>
        {onCancel && isCancellable(record.status) ? (
          <button
            type="button"
            className="small"
            aria-describedby={idCellId}
            disabled={cancelling}
            onClick={onCancel}
          >
            {cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        ) : null}
      </td>
    </tr>
  );
}
