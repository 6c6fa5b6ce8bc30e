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
      <td>{who}</td>
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

/**
 * The batches: when, who, how many devices, current counts; each opens its batch page. The list
 * holds the batches of this browser session (the ledger has no read route yet, issue 4), and says
 * so.
 */
export function BatchList({ batches, who }: { batches: readonly BatchRecord[]; who: string }) {
  return (
    <div className="stack">
      <p className="notice notice-warning">
        Only the batches submitted in this browser session are listed: the batch ledger cannot be
        read yet. Batches from other sessions or before a reload are not shown here.
      </p>
      {batches.length === 0 ? (
        <p className="empty-state">
          No batch submitted in this session. <Link to="/batches/new">Compose a batch</Link>.
        </p>
      ) : (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Batches of this session, newest first</caption>
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
