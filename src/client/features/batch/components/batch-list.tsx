import { Link } from 'react-router';
import { useCommandStatuses } from '#client/commands/api/get-command-status.ts';
import { formatInZone, zoneLabel } from '#client/lib/time.ts';
import { countStatuses, summarizeBatch } from '../lib/batch-progress.ts';
import {
  batchDevices,
  batchPath,
  followedCommands,
  endedBeforeUnbindStatuses,
  unfollowedCounts,
  type BatchRecord,
} from '../lib/ledger-batches.ts';
import './batch.css';
import { ColumnHeads } from '#client/components/column-heads.tsx';

function BatchRow({ record }: { record: BatchRecord }) {
  const statuses = useCommandStatuses(followedCommands(record));
  const devices = batchDevices(record);
  const counts = countStatuses(
    [...statuses.map((s) => s.data), ...endedBeforeUnbindStatuses(devices)],
    unfollowedCounts(devices),
  );
  return (
    <tr>
      <th scope="row">
        <Link to={batchPath(record)} className={record.batchCommandId ? 'mono' : undefined}>
          {record.batchCommandId ?? 'Batch without a batch ID'}
        </Link>
      </th>
      <td>
        {formatInZone(record.submittedAt, record.timeZone)} ({zoneLabel(record.timeZone)})
      </td>
      <td>{record.submittedBy}</td>
      <td>{devices.length}</td>
      <td>
        {counts.received} received, {counts.executing} executing, {counts.completed} completed,{' '}
        {counts.cancelled} cancelled
        {counts.unknown > 0 ? `, ${counts.unknown} not read yet` : ''}
        {counts.confirming > 0 ? `, ${counts.confirming} not confirmed yet` : ''}
        {counts.notFound > 0 ? `, ${counts.notFound} not found in their history` : ''}
        {counts.unbound > 0 ? `, ${counts.unbound} no longer followed (site unbound)` : ''}
      </td>
      <td>{summarizeBatch(counts).words}</td>
    </tr>
  );
}

/** The batches as the ledger recorded them (times on each site's clock, else UTC, said so); each opens its page. */
export function BatchList({ batches }: { batches: readonly BatchRecord[] }) {
  return (
    <div className="stack">
      {batches.some((record) => !record.timeZoneRecorded) ? (
        <p className="field-hint">
          Times are on each batch&apos;s site clock. A batch without a recorded site time zone (an
          older one, or one across sites of different zones) is shown in UTC.
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
            <ColumnHeads columns={['Batch', 'Submitted', 'By', 'Devices', 'Counts', 'State']} />
            <tbody>
              {batches.map((record) => (
                <BatchRow key={record.ledgerId} record={record} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
