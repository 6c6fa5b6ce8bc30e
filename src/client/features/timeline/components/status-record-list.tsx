import type { StatusRecord } from '#domain/command.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '#domain/words.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { instantInZone, windowInZone } from '../lib/window-words.ts';

/** A status record in words: control, window, status, lifecycle timestamps, reason. */
export function StatusRecordList({ record, timeZone }: { record: StatusRecord; timeZone: string }) {
  const at = (iso: string | undefined) =>
    iso ? instantInZone(Date.parse(iso), timeZone) : undefined;
  const entries: [string, string | undefined][] = [
    ['Command', record.id],
    ['Status', COMMAND_STATUS_WORDS[record.status]],
    ['Control', describePowerControl(record.powerControl)],
    ['Window', windowInZone(Date.parse(record.startTime), Date.parse(record.endTime), timeZone)],
    ['Received', at(record.receivedAt)],
    ['Started', at(record.startedAt)],
    ['Completed', at(record.completedAt)],
    ['Cancelled', at(record.cancelledAt)],
    ['Reason', record.cancelReason ? CANCELLATION_REASON_WORDS[record.cancelReason] : undefined],
    ['Batch', record.batchCommandId],
  ];
  return (
    <dl className="status-record">
      {entries
        .filter((entry): entry is [string, string] => entry[1] !== undefined)
        .map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}
