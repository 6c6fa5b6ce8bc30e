import { Link } from 'react-router';
import { formatInZone } from '../../../lib/time.ts';
import { useBatchCommandStatuses } from '../api/batch-command-status.ts';
import type { BatchRecord } from '../api/batch-records.ts';
import { countStatuses, summarizeBatch } from '../lib/batch-progress.ts';
import './batch.css';

function BatchRow({ record, who }: { record: BatchRecord; who: string }) {
  const statuses = useBatchCommandStatuses(record.batchCommandId, record.commands);
  const counts = countStatuses(statuses.map((s) => s.data));
  return (
    <tr>
      <th scope="row">
        <Link to={`/batches/${encodeURIComponent(record.batchCommandId)}`} className="mono">
          {record.batchCommandId}
        </Link>
      </th>
      <td>
        {formatInZone(record.submittedAt, record.timeZone)} ({record.timeZone})
      </td>
      <td>{record.submittedBy ?? who}</td>
      <td>{record.commands.length}</td>
      <td>
        {counts.received} received, {counts.executing} executing, {counts.completed} completed,{' '}
        {counts.cancelled} cancelled
        {counts.unknown > 0 ? `, ${counts.unknown} not read yet` : ''}
      </td>
      <td>{summarizeBatch(counts).words}</td>
    </tr>
  );
}

interface BatchListProps {
  batches: readonly BatchRecord[];
  /** Who submitted the batches of this session (the ledger names its own). */
  who: string;
  /** Set when the ledger could not be read: only this session's batches are listed then. */
  ledgerProblem?: string | undefined;
}

/**
 * The batches: when, who, how many devices, current counts; each opens its batch page. They come
 * from the BFF ledger (issue 4) and this session's submissions; when the ledger cannot be read,
 * the list says it holds this session's batches only.
 */
export function BatchList({ batches, who, ledgerProblem }: BatchListProps) {
  return (
    <div className="stack">
      {ledgerProblem ? (
        <p className="notice notice-warning">
          Only the batches submitted in this browser session are listed: the batch ledger could not
          be read ({ledgerProblem}).
        </p>
      ) : null}
      {batches.length === 0 ? (
        <p className="empty-state">
          No batch yet. <Link to="/batches/new">Compose a batch</Link>.
        </p>
      ) : (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Batches, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Batch</th>
                <th scope="col">Submitted</th>
                <th scope="col">By</th>
                <th scope="col">Devices</th>
                <th scope="col">Counts</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {batches.map((record) => (
                <BatchRow key={record.batchCommandId} record={record} who={who} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
