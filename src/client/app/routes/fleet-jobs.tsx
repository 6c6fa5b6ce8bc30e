import { Link, useNavigate, useParams } from 'react-router';
import type { Site } from '../../../domain/device.ts';
import type { FleetJob } from '../../../domain/fleet-job.ts';
import { useFleetJob, useFleetJobs } from '../../commands/api/fleet-jobs.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { FleetJobForm } from '../../features/fleet/components/fleet-job-form.tsx';
import { FleetJobList } from '../../features/fleet/components/fleet-job-list.tsx';
import { FleetJobView } from '../../features/fleet/components/fleet-job-view.tsx';
import { FleetPlanUpload } from '../../features/fleet/components/fleet-plan-upload.tsx';
import { useSites } from '../../features/sites/api/get-sites.ts';
import { WithBoundSites } from './with-bound-sites.tsx';

/** `/fleet-jobs`: the client's fleet jobs, each opening its page. */
export function FleetJobListRoute() {
  const jobs = useFleetJobs();
  return (
    <>
      <title>Fleet jobs · powerdeck</title>
      <h1>Fleet jobs</h1>
      <p className="lead">
        One command for many devices, sent in paced batches of at most 50 by the server, which goes
        on when this page is closed. <Link to="/fleet-jobs/new">New fleet job</Link> ·{' '}
        <Link to="/fleet-jobs/plan">Send a dispatch plan</Link>
      </p>
      {jobs.isPending ? (
        <Loading what="Loading fleet jobs…" />
      ) : jobs.isError ? (
        <ErrorAlert
          error={jobs.error}
          what="Could not read the fleet jobs."
          onRetry={() => void jobs.refetch()}
        />
      ) : (
        <FleetJobList jobs={jobs.data} />
      )}
    </>
  );
}

/** `/fleet-jobs/new`: the fleet job form over the bound sites; a started job opens its page. */
export function FleetJobNewRoute() {
  const navigate = useNavigate();
  return (
    <>
      <title>New fleet job · powerdeck</title>
      <h1>New fleet job</h1>
      <p className="lead">
        <Link to="/fleet-jobs">All fleet jobs</Link>
      </p>
      <WithBoundSites>
        {(sites) => (
          <FleetJobForm
            sites={sites}
            onCreated={(jobId) => void navigate(`/fleet-jobs/${jobId}`)}
          />
        )}
      </WithBoundSites>
    </>
  );
}

/** `/fleet-jobs/plan`: a dispatch plan from a file, checked, then sent as one fleet job. */
export function FleetPlanRoute() {
  const navigate = useNavigate();
  return (
    <>
      <title>Dispatch plan · powerdeck</title>
      <h1>Dispatch plan</h1>
      <p className="lead">
        <Link to="/fleet-jobs">All fleet jobs</Link>
      </p>
      <WithBoundSites>
        {(sites) => (
          <FleetPlanUpload
            sites={sites}
            onCreated={(jobId) => void navigate(`/fleet-jobs/${jobId}`)}
          />
        )}
      </WithBoundSites>
    </>
  );
}

/** The one zone of the sites a job's devices are in, else UTC. */
function jobTimeZone(job: FleetJob, sites: readonly Site[] | undefined): string {
  const zoneOf = new Map(
    (sites ?? []).flatMap((site) => site.devices.map((d) => [d.deviceId, site.timeZone])),
  );
  const zones = new Set(job.batches.flatMap((b) => b.devices.map((d) => zoneOf.get(d.deviceId))));
  const [zone] = [...zones];
  return zones.size === 1 && zone ? zone : 'UTC';
}

/** `/fleet-jobs/:jobId`: one job, read again while it sends or cancels. */
export function FleetJobDetailRoute() {
  const { jobId = '' } = useParams();
  const job = useFleetJob(jobId);
  const sites = useSites();
  return (
    <>
      <title>{`Fleet job ${jobId.slice(0, 8)} · powerdeck`}</title>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link to="/fleet-jobs">Fleet jobs</Link>
          </li>
          <li aria-current="page">{jobId.slice(0, 8)}</li>
        </ol>
      </nav>
      <h1>
        Fleet job <span className="mono">{jobId.slice(0, 8)}</span>
      </h1>
      {job.isPending ? (
        <Loading what="Loading the fleet job…" />
      ) : job.isError ? (
        <ErrorAlert
          error={job.error}
          what="This fleet job cannot be shown."
          onRetry={() => void job.refetch()}
        />
      ) : (
        <FleetJobView job={job.data} timeZone={jobTimeZone(job.data, sites.data?.sites)} />
      )}
    </>
  );
}
