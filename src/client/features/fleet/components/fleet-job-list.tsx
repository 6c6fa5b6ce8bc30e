import { Link } from 'react-router';
import type { FleetJob } from '#domain/fleet-job.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { formatInZone } from '#client/lib/time.ts';
import { FLEET_JOB_STATE_WORDS } from '../lib/fleet-words.ts';
import { ColumnHeads } from '#client/components/column-heads.tsx';

/** The client's fleet jobs, newest first: state, devices sent of all, command, start (UTC). */
export function FleetJobList({ jobs }: { jobs: readonly FleetJob[] }) {
  if (jobs.length === 0)
    return (
      <p className="empty-state">
        No fleet job yet. <Link to="/fleet-jobs/new">Start one</Link> to send one command to many
        devices in paced batches.
      </p>
    );
  return (
    <div className="table-scroll">
      <table>
        <ColumnHeads columns={['Started (UTC)', 'State', 'Devices sent', 'Power control', 'Job']} />
        <tbody>
          {jobs.map((job) => (
            <tr key={job.jobId}>
              <td>{formatInZone(job.createdAt, 'UTC')}</td>
              <td>{FLEET_JOB_STATE_WORDS[job.state]}</td>
              <td>
                {job.progress.sent} of {job.progress.total}
                {job.progress.failed > 0 ? `, ${job.progress.failed} failed` : ''}
              </td>
              <td>{describePowerControl(job.command.powerControl)}</td>
              <td>
                <Link to={`/fleet-jobs/${job.jobId}`}>Open job {job.jobId.slice(0, 8)}</Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
